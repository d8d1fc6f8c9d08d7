import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/core/config.ts';
import { MasterKeyMismatchError, openCore } from '../../src/core/core.ts';
import { createTestCore, type Env, type TestCore, testDatabase } from '../helpers/harness.ts';
import { binPath, freePort, runCli } from '../helpers/processes.ts';

/** `sintonia serve` that must not start: its exit code and output, or a failure if it is still up after 30 s. */
function serveThatMustNotStart(env: Env): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, 'serve', '--service', 'assistant-auth'], {
      env: { PATH: process.env.PATH, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve with another master key was still running after 30 s:\n${output}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe(`the store's master key fingerprint (${testDatabase})`, () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  const anotherKey = () => randomBytes(32).toString('hex');

  it('records an HMAC of a constant, never the key', async () => {
    const rows = await core.database.db.selectFrom('store_identity').selectAll().execute();
    assert.deepEqual(
      rows.map((row) => row.name),
      ['master_key_fingerprint'],
    );
    const [row] = rows;
    assert.match(String(row?.value), /^[0-9a-f]{64}$/);
    const key = String(core.env.SINTONIA_MASTER_KEY);
    assert.ok(!String(row?.value).includes(key), 'not the key itself');
    assert.notEqual(row?.value, Buffer.from(key, 'hex').toString('base64'));
  });

  it('a second process with the same key starts', async () => {
    const migrated = await runCli(['migrate'], core.env);
    assert.equal(migrated.code, 0, migrated.stderr);
    const listed = await runCli(['key', 'list'], core.env);
    assert.equal(listed.code, 0, listed.stderr);
  });

  it('`sintonia migrate` and the admin commands with another key exit non-zero, naming SINTONIA_MASTER_KEY', async () => {
    const env = { ...core.env, SINTONIA_MASTER_KEY: anotherKey() };
    for (const args of [
      ['migrate'],
      ['key', 'list'],
      ['key', 'create', '--class', 'client', '--name', 'x'],
    ]) {
      const result = await runCli(args, env);
      assert.equal(result.code, 1, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, /SINTONIA_MASTER_KEY/, args.join(' '));
      assert.match(result.stderr, /refusing to start/, args.join(' '));
      assert.equal(result.stdout, '', 'no answer on stdout');
    }
    // Nothing was written with the wrong key.
    assert.deepEqual(
      (await core.apiKeys.list()).map((key) => key.name),
      [],
    );
  });

  it('`sintonia serve` with another key exits non-zero before it listens', async () => {
    const port = await freePort();
    const result = await serveThatMustNotStart({
      ...core.env,
      ASSISTANT_AUTH_PORT: String(port),
      SINTONIA_MASTER_KEY: anotherKey(),
    });
    assert.notEqual(result.code, 0, result.output);
    assert.equal(result.code, 1, result.output);
    assert.match(result.output, /SINTONIA_MASTER_KEY/);
    const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => true,
      () => false,
    );
    assert.equal(answered, false, 'nothing listens on its port');
  });

  it('a process without SINTONIA_MASTER_KEY, whose generated key file differs, is refused too', async () => {
    const result = await runCli(['migrate'], { ...core.env, SINTONIA_MASTER_KEY: undefined });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /SINTONIA_MASTER_KEY is not set and the key file .*master\.key/);
  });

  it('openCore throws a MasterKeyMismatchError and leaves the store as it was', async () => {
    const before = await core.database.db.selectFrom('store_identity').selectAll().execute();
    await assert.rejects(
      openCore(loadConfig({ ...core.env, SINTONIA_MASTER_KEY: anotherKey() } as NodeJS.ProcessEnv)),
      (error) => error instanceof MasterKeyMismatchError && /SINTONIA_MASTER_KEY/.test(error.message),
    );
    assert.deepEqual(await core.database.db.selectFrom('store_identity').selectAll().execute(), before);
    // The right key still opens it.
    const again = await openCore(loadConfig(core.env as NodeJS.ProcessEnv));
    await again.close();
  });
});
