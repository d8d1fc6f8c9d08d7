import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

describe('API keys', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  it('creates a key with a readable prefix and stores only its hash', async () => {
    const created = await core.apiKeys.create('gateway', 'gw');
    assert.match(created.key, /^snt_gateway_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const rows = await core.database.db.selectFrom('api_keys').selectAll().execute();
    const secret = created.key.split('_').slice(3).join('_');
    for (const row of rows) {
      assert.ok(!JSON.stringify(row).includes(secret), 'the secret is not stored');
    }
    const verified = await core.apiKeys.verify(created.key);
    assert.equal(verified?.id, created.id);
    assert.equal(verified?.keyClass, 'gateway');
  });

  it('refuses unknown, malformed, altered and reclassed keys', async () => {
    const created = await core.apiKeys.create('client', 'c');
    const last = created.key.at(-1) === 'A' ? 'B' : 'A';
    assert.equal(await core.apiKeys.verify(`${created.key.slice(0, -1)}${last}`), undefined);
    assert.equal(await core.apiKeys.verify(created.key.replace('snt_client_', 'snt_runtime_')), undefined);
    assert.equal(await core.apiKeys.verify(`snt_client_0000000000000000_${'A'.repeat(43)}`), undefined);
    assert.equal(await core.apiKeys.verify('nonsense'), undefined);
  });

  it('refuses a revoked key at once', async () => {
    const created = await core.apiKeys.create('runtime', 'r');
    assert.ok(await core.apiKeys.verify(created.key));
    assert.equal(await core.apiKeys.revoke(created.id), true);
    assert.equal(await core.apiKeys.verify(created.key), undefined);
    assert.equal(await core.apiKeys.revoke(created.id), true, 'revoking twice is not an error');
    assert.equal(await core.apiKeys.revoke('ffffffffffffffff'), false);
  });

  it('records last use coarsely', async () => {
    const created = await core.apiKeys.create('backoffice', 'b');
    await core.apiKeys.verify(created.key);
    const first = (await core.apiKeys.list()).find((key) => key.id === created.id)?.lastUsedAt;
    assert.ok(first);
    await core.apiKeys.verify(created.key);
    const second = (await core.apiKeys.list()).find((key) => key.id === created.id)?.lastUsedAt;
    assert.equal(second, first, 'a second use within a minute writes nothing');
  });
});
