import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { MailTables } from '../../src/client-api/mail/outbox-repository.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { freePort, startServe } from '../helpers/processes.ts';
import { header, type SmtpSink, startSmtpSink, textBody } from './mail-smtp-fixture.ts';

describe('registration e-mail across a crash', () => {
  let core: TestCore | undefined;
  let smtp: SmtpSink | undefined;
  const children: Array<{ kill(signal: NodeJS.Signals): boolean }> = [];

  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await smtp?.close();
    await core?.dispose();
  });

  it('an e-mail accepted before a kill -9 is delivered after the restart', async () => {
    core = await createTestCore();
    const smtpPort = await freePort();
    const apiPort = await freePort();
    const env = {
      ...core.env,
      CLIENT_API_PORT: String(apiPort),
      // SMTP is down until the first process is dead: the message can only be delivered by the second.
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_RETRY_BASE_MS: '200',
      MAIL_POLL_INTERVAL_MS: '100',
      LOG_LEVEL: 'silent',
    };
    const url = `http://127.0.0.1:${apiPort}`;
    const first = await startServe(['--service', 'client-api'], env, [url]);
    children.push(first.child);

    const response = await fetch(`${url}/api/v1/web/registration/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'survivor@example.test', language: 'en' }),
    });
    assert.equal(response.status, 200);
    const { requestId } = (await response.json()) as { requestId: string };

    // Wait until the first process has tried (and failed) to deliver it, then kill it without warning.
    const outbox = core.database.db.withTables<MailTables>();
    const deadline = Date.now() + 15_000;
    for (;;) {
      const row = await outbox.selectFrom('mail_outbox').select(['attempts', 'status']).executeTakeFirst();
      if (row && row.attempts >= 1) {
        assert.equal(row.status, 'pending');
        break;
      }
      assert.ok(Date.now() < deadline, 'the first process never attempted a delivery');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.child.kill('SIGKILL');
    await first.exited;

    smtp = await startSmtpSink(smtpPort);
    assert.equal(smtp.received.length, 0);
    const second = await startServe(['--service', 'client-api'], env, [url]);
    children.push(second.child);

    const [mail] = await smtp.waitFor(1, 20_000);
    assert.ok(mail);
    assert.deepEqual(mail.to, ['survivor@example.test']);
    assert.equal(header(mail.raw, 'Subject'), 'Your Sintonia registration');
    assert.ok(textBody(mail.raw).includes(`Reference: ${requestId}`));
    // The worker marks it sent once the SMTP server has acknowledged it.
    for (let tries = 0; ; tries++) {
      const row = await outbox.selectFrom('mail_outbox').select(['status']).executeTakeFirstOrThrow();
      if (row.status === 'sent') break;
      assert.ok(tries < 100, `still ${row.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(smtp.received.length, 1);
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
