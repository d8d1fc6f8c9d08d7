import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';

describe('sintonia CLI', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  it('migrates the configured database', async () => {
    const result = await runCli(['migrate'], core.env);
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout);
    assert.equal(answer.database, core.database.dialect);
    assert.deepEqual(answer.applied, []);
  });

  it('creates, lists and revokes keys; a revoked key is refused at once', async () => {
    const created = await runCli(['key', 'create', '--class', 'gateway', '--name', 'partner'], core.env);
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    assert.deepEqual(Object.keys(key).sort(), ['class', 'id', 'key']);
    assert.equal(key.class, 'gateway');
    assert.ok(await core.apiKeys.verify(key.key), 'the printed key works in the service');

    const listed = JSON.parse((await runCli(['key', 'list'], core.env)).stdout);
    const entry = listed.keys.find((row: { id: string }) => row.id === key.id);
    assert.equal(entry.name, 'partner');
    assert.ok(!JSON.stringify(listed).includes(key.key.slice(-20)), 'list never shows a secret');

    const revoked = await runCli(['key', 'revoke', key.id], core.env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.deepEqual(JSON.parse(revoked.stdout), { id: key.id, revoked: true });
    assert.equal(await core.apiKeys.verify(key.key), undefined);
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const badClass = await runCli(['key', 'create', '--class', 'root', '--name', 'x'], core.env);
    assert.equal(badClass.code, 2);
    assert.match(badClass.stderr, /--class must be one of runtime, gateway, client, backoffice/);
    assert.equal(badClass.stdout, '');
    const missing = await runCli(['key', 'create', '--class', 'client'], core.env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--name is required/);
    const unknownKey = await runCli(['key', 'revoke', 'ffffffffffffffff'], core.env);
    assert.notEqual(unknownKey.code, 0);
    assert.match(unknownKey.stderr, /no API key with id ffffffffffffffff/);
    const unknownCommand = await runCli(['frobnicate'], core.env);
    assert.equal(unknownCommand.code, 2);
    assert.match(unknownCommand.stderr, /unknown command/);
  });

  it('stops with exit 1 naming a bad variable', async () => {
    const result = await runCli(['serve'], { ...core.env, CLIENT_API_PORT: 'abc' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /CLIENT_API_PORT="abc"/);
  });
});
