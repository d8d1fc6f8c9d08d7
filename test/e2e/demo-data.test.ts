import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientApiService } from '../../src/client-api/service.ts';
import { buildServiceApp } from '../../src/core/http/service-app.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { freePort, runCli, startServe } from '../helpers/processes.ts';

type KeyRecord = { id: string; name: string; keyClass: string; revokedAt: string | null };
const classes = ['backoffice', 'client', 'gateway', 'runtime'];

async function listKeys(core: TestCore): Promise<KeyRecord[]> {
  const listed = await runCli(['key', 'list'], core.env);
  assert.equal(listed.code, 0, listed.stderr);
  return (JSON.parse(listed.stdout) as { keys: KeyRecord[] }).keys;
}

/** The live demo keys, one class name per key, sorted. */
const liveDemoClasses = (keys: KeyRecord[]) =>
  keys
    .filter((key) => key.revokedAt === null && key.name.startsWith('demo-'))
    .map((key) => key.keyClass)
    .sort();

async function seedDemo(core: TestCore): Promise<{ apiKeys: Record<string, string> }> {
  const seeded = await runCli(['seed-demo'], core.env);
  assert.equal(seeded.code, 0, seeded.stderr);
  return JSON.parse(seeded.stdout) as { apiKeys: Record<string, string> };
}

describe('demo data', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  it('seed-demo run again keeps exactly one live demo key per class, and the same records', async () => {
    const first = await seedDemo(core);
    const second = await seedDemo(core);
    assert.deepEqual(second, first, 'the recorded keys still verify, so they are printed again');
    assert.deepEqual(liveDemoClasses(await listKeys(core)), classes);
    assert.equal((await listKeys(core)).length, classes.length, 'no second set was made');

    // Without the recorded secrets they cannot be printed again: the old set is revoked, a new one made.
    writeFileSync(join(core.config.SINTONIA_DATA_DIR, 'demo-credentials.json'), 'lost');
    const third = await seedDemo(core);
    assert.notEqual(third.apiKeys.backoffice, first.apiKeys.backoffice);
    const keys = await listKeys(core);
    assert.deepEqual(liveDemoClasses(keys), classes);
    assert.equal(keys.filter((key) => key.revokedAt !== null).length, classes.length);
    assert.equal(await core.apiKeys.verify(first.apiKeys.backoffice ?? ''), undefined);
    assert.ok(await core.apiKeys.verify(third.apiKeys.backoffice ?? ''));
    assert.deepEqual(await seedDemo(core), third);
  });
});

describe('SINTONIA_DEMO=0', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  it('serve starts with no demo data, no demo keys and no demo credentials', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const env = {
      ...core.env,
      SINTONIA_DEMO: '0',
      CLIENT_API_PORT: String(ports[0]),
      ASSISTANT_AUTH_PORT: String(ports[1]),
      AGENTS_PORT: String(ports[2]),
      LOG_LEVEL: 'warn',
    };
    const server = await startServe([], env, [`http://127.0.0.1:${ports[0]}`]);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    assert.doesNotMatch(server.output(), /Demo credentials|demo-/);
    assert.equal(existsSync(join(core.config.SINTONIA_DATA_DIR, 'demo-credentials.json')), false);
    // The one key: the family's own runtime key, derived from the master key (not a demo key).
    assert.deepEqual(
      (await listKeys(core)).map((key) => [key.keyClass, key.name]),
      [['runtime', 'family (derived from the master key)']],
    );
    const app = await buildServiceApp(core, clientApiService);
    try {
      const operator = (await core.apiKeys.create('backoffice', 'check')).key;
      const demoAccount = () =>
        app.inject({
          url: `${core.config.CLIENT_API_BASE_PATH}/accounts/demo-0001/userHash`,
          headers: { 'x-api-key': operator, accept: 'application/json' },
        });
      const absent = await demoAccount();
      assert.equal(absent.statusCode, 404, absent.body);
      // The explicit command still loads it.
      await seedDemo(core);
      assert.equal((await demoAccount()).statusCode, 200);
    } finally {
      await app.close();
    }
  });
});
