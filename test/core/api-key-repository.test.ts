import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiKeyRow, createApiKeyRepository } from '../../src/core/api-keys/api-key-repository.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

const row = (id: string, createdAt: number): ApiKeyRow => ({
  id,
  name: `key ${id}`,
  key_class: 'client',
  secret_hash: 'ab'.repeat(32),
  created_at: createdAt,
  revoked_at: null,
  last_used_at: null,
});

describe('API key repository', () => {
  let core: TestCore;
  let keys: ReturnType<typeof createApiKeyRepository>;
  before(async () => {
    core = await createTestCore();
    keys = createApiKeyRepository(core.database.db);
  });
  after(() => core.dispose());

  it('stores a row and reads it back by id, oldest first in the list', async () => {
    await keys.insert(row('b000000000000002', 2_000));
    await keys.insert(row('b000000000000001', 2_000));
    await keys.insert(row('a000000000000009', 1_000));
    assert.deepEqual(await keys.findById('b000000000000002'), row('b000000000000002', 2_000));
    assert.equal(await keys.findById('ffffffffffffffff'), undefined);
    const ids = (await keys.listAll()).map((key) => key.id);
    assert.deepEqual(ids, ['a000000000000009', 'b000000000000001', 'b000000000000002']);
  });

  it('revokes once, tells a known id from an unknown one, and records a use', async () => {
    await keys.insert(row('c000000000000001', 3_000));
    assert.equal(await keys.markRevoked('c000000000000001', 4_000), true);
    assert.equal(await keys.markRevoked('c000000000000001', 5_000), false, 'already revoked');
    assert.equal(await keys.markRevoked('ffffffffffffffff', 5_000), false);
    assert.equal(await keys.exists('c000000000000001'), true);
    assert.equal(await keys.exists('ffffffffffffffff'), false);
    await keys.recordUse('c000000000000001', 6_000);
    const stored = await keys.findById('c000000000000001');
    assert.equal(stored?.revoked_at, 4_000, 'the first revocation time is kept');
    assert.equal(stored?.last_used_at, 6_000);
  });

  it('runs inside the caller transaction when given one', async () => {
    await assert.rejects(
      core.database.db.transaction().execute(async (trx) => {
        await keys.insert(row('d000000000000001', 7_000), trx);
        assert.equal((await keys.findById('d000000000000001', trx))?.id, 'd000000000000001');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await keys.exists('d000000000000001'), false, 'rolled back with the transaction');
  });
});
