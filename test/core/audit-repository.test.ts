import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuditRepository } from '../../src/core/db/audit-repository.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

describe('audit log', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  const entries = (action: string) =>
    core.database.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  it('Core.audit appends who did what to which id, with its own id and time', async () => {
    const start = Date.now();
    await core.audit('key:0123456789abcdef', 'api-key.revoke', 'fedcba9876543210');
    await core.audit('key:0123456789abcdef', 'api-key.revoke', 'fedcba9876543210');
    const rows = await entries('api-key.revoke');
    assert.equal(rows.length, 2, 'append only: the same action twice is two entries');
    for (const row of rows) {
      assert.equal(row.actor, 'key:0123456789abcdef');
      assert.equal(row.subject, 'fedcba9876543210');
      assert.match(row.id, /^[0-9a-f-]{36}$/);
      assert.ok(row.at >= start && row.at <= Date.now());
    }
    assert.notEqual(rows[0]?.id, rows[1]?.id);
  });

  it('an entry appended inside a transaction commits or rolls back with it', async () => {
    const audit = createAuditRepository(core.database.db);
    const entry = (action: string) => ({ id: action, at: 1, actor: 'operator', action, subject: 's' });
    await assert.rejects(
      core.database.db.transaction().execute(async (trx) => {
        await audit.append(entry('rolled-back'), trx);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await core.database.db.transaction().execute((trx) => audit.append(entry('committed'), trx));
    assert.equal((await entries('rolled-back')).length, 0);
    assert.equal((await entries('committed')).length, 1);
  });
});
