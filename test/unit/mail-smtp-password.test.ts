import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { createMailTransport } from '../../src/client-api/mail/transport.ts';
import { loadConfig } from '../../src/core/config.ts';

/** A real SMTP server on loopback that wants AUTH PLAIN with one user and password. */
async function authenticatingServer(user: string, password: string) {
  const received: string[] = [];
  const attempts: Array<{ username?: string; password?: string }> = [];
  const server = new SMTPServer({
    authMethods: ['PLAIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      attempts.push({ username: auth.username, password: auth.password ?? undefined });
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, received, attempts, close: () => new Promise<void>((done) => server.close(() => done())) };
}

describe('SMTP_PASSWORD / SMTP_PASSWORD_FILE', () => {
  // A password with the characters a URL would need escaped.
  const password = 'p@ss:w/rd%?#';
  let folder: string;
  let server: Awaited<ReturnType<typeof authenticatingServer>>;
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'sintonia-smtp-'));
    server = await authenticatingServer('mailer', password);
  });
  after(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const message = { to: 'someone@example.com', subject: 'hello', text: 'body' };

  it('the password from a file signs the SMTP_URL user in, and the message is delivered', async () => {
    const file = join(folder, 'smtp-password');
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    const config = loadConfig({
      SMTP_URL: `smtp://mailer@127.0.0.1:${server.port}`,
      SMTP_PASSWORD_FILE: file,
    });
    const transport = createMailTransport(config);
    try {
      await transport.deliver('m1', message);
    } finally {
      transport.close();
    }
    assert.deepEqual(server.attempts.at(-1), { username: 'mailer', password });
    assert.equal(server.received.length, 1);
    assert.match(server.received[0] ?? '', /Subject: hello/);
  });

  it('without it the same URL is refused by the server (the test can fail)', async () => {
    const transport = createMailTransport(
      loadConfig({ SMTP_URL: `smtp://mailer:wrong@127.0.0.1:${server.port}` }),
    );
    try {
      await assert.rejects(transport.deliver('m2', message), /Invalid username or password/);
    } finally {
      transport.close();
    }
    assert.equal(server.received.length, 1);
  });
});
