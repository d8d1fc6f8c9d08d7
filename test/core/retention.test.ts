import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AccountTables, ClientContentTables } from '../../src/client-api/tables.ts';
import { ConfigError, loadConfig } from '../../src/core/config.ts';
import { coreRetentionRules, retentionJob } from '../../src/core/db/retention.ts';
import type { CoreTables } from '../../src/core/db/tables.ts';
import { startFamily } from '../../src/family.ts';
import { capturingLogger, createTestCore, type TestCore } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';

const DAY = 86400_000;
type Tables = CoreTables & Pick<AccountTables, 'sessions'> & ClientContentTables;

function session(id: string, fields: { closedAt?: number; refreshExpiresAt: number; createdAt: number }) {
  return {
    id,
    account_number: '4000001',
    device_id: `device-${id}`,
    device_class: 'web',
    platform_user_id: 'user-1',
    qsp_version: '1',
    refresh_hash: `hash-${id}`,
    refresh_expires_at: fields.refreshExpiresAt,
    tier: null,
    scope: null,
    user_profile: null,
    created_at: fields.createdAt,
    last_used_at: fields.createdAt,
    closed_at: fields.closedAt ?? null,
  };
}

function mail(id: string, status: 'pending' | 'sent' | 'failed', createdAt: number) {
  return {
    id,
    kind: 'registration',
    sealed_message: 'sealed',
    status,
    attempts: 1,
    next_attempt_at: createdAt,
    locked_until: null,
    created_at: createdAt,
    sent_at: status === 'sent' ? createdAt : null,
    last_error: null,
  };
}

describe('retention: the client API removes every growing table’s old rows and keeps the rest', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore({ RETENTION_BATCH_SIZE: '2', RETENTION_BATCH_PAUSE_MS: '0' });
  });
  after(async () => core.dispose());

  it('once the service runs, old rows are gone; recent ones and those still needed stay', async () => {
    const db = core.database.db.withTables<Tables>();
    const now = Date.now();
    const longAgo = now - 400 * DAY;
    const days = (count: number) => now - count * DAY;
    await db
      .insertInto('audit_log')
      .values([
        { id: 'audit-old', at: longAgo, actor: 'operator', action: 'old', subject: 'x' },
        { id: 'audit-recent', at: days(1), actor: 'operator', action: 'recent', subject: 'x' },
      ])
      .execute();
    await db
      .insertInto('sessions')
      .values([
        session('closed-long-ago', { closedAt: days(8), refreshExpiresAt: days(-20), createdAt: longAgo }),
        session('closed-yesterday', { closedAt: days(1), refreshExpiresAt: days(-20), createdAt: longAgo }),
        session('refresh-expired', { refreshExpiresAt: days(8), createdAt: longAgo }),
        session('open-for-years', { refreshExpiresAt: days(-20), createdAt: longAgo }),
      ])
      .execute();
    await db
      .insertInto('mail_outbox')
      .values([
        mail('sent-old', 'sent', days(8)),
        mail('failed-old', 'failed', days(8)),
        mail('pending-old', 'pending', days(8)),
        mail('sent-recent', 'sent', days(1)),
      ])
      .execute();
    await db
      .insertInto('registration_requests')
      .values([
        {
          id: 'request-old',
          device_class: 'web',
          email_hash: 'h',
          outbox_id: 'sent-old',
          created_at: days(31),
        },
        { id: 'request-recent', device_class: 'web', email_hash: 'h', outbox_id: 'x', created_at: days(1) },
      ])
      .execute();
    await db
      .insertInto('ad_contacts')
      .values([
        {
          id: 'contact-old',
          account_number: '4000001',
          device_class: 'web',
          campaign: 'c',
          media_player_id: null,
          created_at: days(91),
        },
        {
          id: 'contact-recent',
          account_number: '4000001',
          device_class: 'web',
          campaign: 'c',
          media_player_id: null,
          created_at: days(89),
        },
      ])
      .execute();

    const family = await startFamily(core, ['client-api']);
    try {
      const ids = async (
        table: 'audit_log' | 'sessions' | 'mail_outbox' | 'registration_requests' | 'ad_contacts',
      ) => (await db.selectFrom(table).select('id').orderBy('id').execute()).map((row) => row.id);
      await until(
        async () => ((await ids('ad_contacts')).length === 1 ? true : undefined),
        'the retention pass',
      );
      assert.deepEqual(await ids('audit_log'), ['audit-recent']);
      assert.deepEqual(await ids('sessions'), ['closed-yesterday', 'open-for-years']);
      assert.deepEqual(await ids('mail_outbox'), ['pending-old', 'sent-recent'], 'pending mail always stays');
      assert.deepEqual(await ids('registration_requests'), ['request-recent']);
      assert.deepEqual(await ids('ad_contacts'), ['contact-recent']);
    } finally {
      await family.close();
    }
  });
});

describe('retention: batches and the log', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore({ RETENTION_BATCH_SIZE: '3', RETENTION_BATCH_PAUSE_MS: '1' });
  });
  after(async () => core.dispose());

  const fill = async (count: number, at: number, prefix: string) => {
    const rows = Array.from({ length: count }, (_, index) => ({
      id: `${prefix}-${String(index).padStart(3, '0')}`,
      at,
      actor: 'operator',
      action: 'filled',
      subject: 'x',
    }));
    await core.database.db.insertInto('audit_log').values(rows).execute();
  };
  const count = async () =>
    Number(
      (
        await core.database.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a table larger than a batch empties over several batches, and the log says what went', async () => {
    await fill(10, Date.now() - 400 * DAY, 'old');
    await fill(2, Date.now(), 'new');
    const { lines, logger } = capturingLogger();
    const job = retentionJob(core.database, coreRetentionRules(core.config), core.config, logger);
    await job.start();
    try {
      const line = await until(
        () => lines.find((entry) => entry.msg === 'retention: removed rows past their retention'),
        'the retention log line',
      );
      assert.deepEqual(line.removed, { audit_log: 10 });
      assert.equal(line.batches, 4, '3 + 3 + 3 + 1');
      assert.equal(typeof line.ms, 'number');
      assert.equal(await count(), 2, 'the recent entries stay');
    } finally {
      job.stop();
    }
    // A pass with nothing to remove removes nothing and says nothing.
    assert.deepEqual(await job.runOnce(), { removed: {}, batches: 0 });
  });

  it('a retention of 0 keeps the rows forever', async () => {
    await fill(4, Date.now() - 4000 * DAY, 'ancient');
    const forever = { ...core.config, AUDIT_RETENTION: 0 };
    const job = retentionJob(core.database, coreRetentionRules(forever), forever, capturingLogger().logger);
    assert.deepEqual(await job.runOnce(), { removed: {}, batches: 0 });
    assert.equal(await count(), 6);
  });

  it('refuses a batch size of 0 or a negative retention at start, naming the variable', () => {
    assert.throws(
      () => loadConfig({ RETENTION_BATCH_SIZE: '0' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /RETENTION_BATCH_SIZE=0: must be >= 1/);
        return true;
      },
    );
    assert.throws(() => loadConfig({ SESSION_RETENTION: '-1' }), /SESSION_RETENTION=-1/);
  });
});
