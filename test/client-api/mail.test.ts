import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { enqueueMail, OUTBOX_KEY_PURPOSE } from '../../src/client-api/mail/outbox.ts';
import type { MailTables } from '../../src/client-api/mail/outbox-repository.ts';
import { createOutboxRepository } from '../../src/client-api/mail/outbox-repository.ts';
import { createMailTransport } from '../../src/client-api/mail/transport.ts';
import { createMailWorker, type MailWorker, retryDelay } from '../../src/client-api/mail/worker.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { freePort } from '../helpers/processes.ts';
import { type SmtpSink, startSmtpSink } from './mail-smtp-fixture.ts';

const silent = pino({ level: 'silent' });

describe('mail outbox worker', () => {
  let core: TestCore;
  const workers: MailWorker[] = [];
  const sinks: SmtpSink[] = [];

  before(async () => {
    core = await createTestCore();
  });
  after(async () => {
    for (const worker of workers) await worker.stop();
    for (const sink of sinks) await sink.close();
    await core.dispose();
  });

  const db = () => core.database.db.withTables<MailTables>();
  const outbox = () => createOutboxRepository(db());
  const key = () => core.key(OUTBOX_KEY_PURPOSE);
  const row = (id: string) =>
    db().selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  function worker(smtpUrl: string, options: { maxAttempts?: number; retryBaseMs?: number } = {}): MailWorker {
    const created = createMailWorker({
      outbox: outbox(),
      key: key(),
      transport: createMailTransport({ ...core.config, SMTP_URL: smtpUrl }),
      logger: silent,
      config: {
        MAIL_POLL_INTERVAL_MS: 60_000,
        MAIL_RETRY_BASE_MS: options.retryBaseMs ?? 100,
        MAIL_MAX_ATTEMPTS: options.maxAttempts ?? 50,
      },
    });
    workers.push(created);
    return created;
  }

  it('backs off exponentially, capped at an hour', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((attempts) => retryDelay(5000, attempts)),
      [5000, 10_000, 20_000, 40_000],
    );
    assert.equal(retryDelay(5000, 40), 3_600_000);
  });

  it('keeps a message while SMTP is down and delivers it once SMTP is back', async () => {
    const port = await freePort();
    const id = await enqueueMail(
      outbox(),
      key(),
      'test',
      { to: 'down@example.test', subject: 'Retry me', text: 'body' },
      Date.now(),
    );
    const mailer = worker(`smtp://127.0.0.1:${port}`);
    assert.equal(await mailer.runOnce(), 0);
    const failed = await row(id);
    assert.equal(failed.status, 'pending');
    assert.equal(failed.attempts, 1);
    assert.ok(failed.next_attempt_at > Date.now(), 'retry is scheduled in the future');
    assert.ok(
      failed.last_error && !failed.last_error.includes('down@example.test'),
      String(failed.last_error),
    );
    // Not due yet: another pass leaves it alone.
    assert.equal(await mailer.runOnce(), 0);
    assert.equal((await row(id)).attempts, 1);

    const sink = await startSmtpSink(port);
    sinks.push(sink);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(await mailer.runOnce(), 1);
    const [mail] = await sink.waitFor(1);
    assert.deepEqual(mail?.to, ['down@example.test']);
    const sent = await row(id);
    assert.equal(sent.status, 'sent');
    assert.equal(sent.attempts, 2);
    assert.equal(sent.sealed_message, '', 'the delivered message and its address are not kept');
  });

  it('two workers on one database deliver a message once', async () => {
    const sink = await startSmtpSink();
    sinks.push(sink);
    const id = await enqueueMail(
      outbox(),
      key(),
      'test',
      { to: 'once@example.test', subject: 'Once', text: 'x' },
      Date.now(),
    );
    const [a, b] = await Promise.all([worker(sink.url).runOnce(), worker(sink.url).runOnce()]);
    assert.equal(a + b, 1);
    await sink.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(sink.received.filter((mail) => mail.to.includes('once@example.test')).length, 1);
    assert.equal((await row(id)).status, 'sent');
  });

  it('marks a message failed after MAIL_MAX_ATTEMPTS and keeps it in the outbox', async () => {
    const port = await freePort();
    const id = await enqueueMail(
      outbox(),
      key(),
      'test',
      { to: 'never@example.test', subject: 'No', text: 'x' },
      Date.now(),
    );
    const mailer = worker(`smtp://127.0.0.1:${port}`, { maxAttempts: 2, retryBaseMs: 10 });
    await mailer.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await mailer.runOnce();
    const failed = await row(id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 2);
    assert.notEqual(failed.sealed_message, '');
  });
});
