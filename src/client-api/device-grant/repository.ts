import type { SelectQueryBuilder } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { DeviceGrantRow, DeviceGrantTables } from './tables.ts';

/** A decision on a pending grant: approved for an account's user, or denied. */
export interface GrantDecision {
  status: 'approved' | 'denied';
  /** The device the TV becomes: the id it asked for, or one of its own when that one is taken. */
  deviceId: string;
  accountNumber: string;
  platformUserId: string;
  decidedBy: string;
}

type Grants = SelectQueryBuilder<DeviceGrantTables, 'device_grants', object>;

/** How many grants a query finds, and the earliest expiry among them. */
async function countOf(query: Grants): Promise<{ count: number; nextExpiry?: number }> {
  const row = await query
    .select((eb) => [
      eb.fn.countAll<number | string | bigint>().as('count'),
      eb.fn.min('expires_at').as('next_expiry'),
    ])
    .executeTakeFirstOrThrow();
  const next = row.next_expiry === null ? undefined : Number(row.next_expiry);
  return { count: Number(row.count), ...(next === undefined ? {} : { nextExpiry: next }) };
}

/**
 * TV sign-ins in the store, so that any process answers any poll. Every change of state is one
 * conditional update, so two processes (or a double click) cannot both decide or both redeem.
 */
export function createDeviceGrantRepository(database: Database) {
  const db = database.db.withTables<DeviceGrantTables>();
  return {
    /** False when a code's hash is taken already (the caller draws another). */
    async insert(row: DeviceGrantRow): Promise<boolean> {
      const inserted = await db
        .insertInto('device_grants')
        .values(row)
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async byDeviceCode(hash: string): Promise<DeviceGrantRow | undefined> {
      return db
        .selectFrom('device_grants')
        .selectAll()
        .where('device_code_hash', '=', hash)
        .executeTakeFirst();
    },

    /** A pending grant, unexpired, by its user code's hash. */
    async pendingByUserCode(hash: string, now: number): Promise<DeviceGrantRow | undefined> {
      return db
        .selectFrom('device_grants')
        .selectAll()
        .where('user_code_hash', '=', hash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
    },

    async byId(id: string): Promise<DeviceGrantRow | undefined> {
      return db.selectFrom('device_grants').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /**
     * Unexpired grants of one client address that are waiting or were refused (a refusal does not free its
     * slot before the code's lifetime ends), and when the first of them expires.
     */
    async heldBy(addressHash: string, now: number): Promise<{ count: number; nextExpiry?: number }> {
      return countOf(
        db
          .selectFrom('device_grants')
          .where('address_hash', '=', addressHash)
          .where('status', 'in', ['pending', 'denied'])
          .where('expires_at', '>', now),
      );
    },

    /** Unexpired grants one account refused, and when the first of them expires. */
    async refusedBy(accountNumber: string, now: number): Promise<{ count: number; nextExpiry?: number }> {
      return countOf(
        db
          .selectFrom('device_grants')
          .where('account_number', '=', accountNumber)
          .where('expires_at', '>', now)
          .where('status', '=', 'denied'),
      );
    },

    /** Unexpired grants waiting for a decision, of every address, and when the first of them expires. */
    async pendingOverall(now: number): Promise<{ count: number; nextExpiry?: number }> {
      return countOf(
        db.selectFrom('device_grants').where('expires_at', '>', now).where('status', '=', 'pending'),
      );
    },

    /**
     * A poll: recorded when it comes at least `leewayMs` short of the grant's interval after the last one;
     * else false, and the interval grows by 5 seconds (`slow_down`).
     */
    async recordPoll(id: string, now: number, leewayMs: number): Promise<boolean> {
      const recorded = await db
        .updateTable('device_grants')
        .set({ last_polled_at: now })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('last_polled_at', 'is', null),
            eb(
              'last_polled_at',
              '<=',
              eb(eb.lit(now + leewayMs), '-', eb('poll_interval', '*', eb.lit(1000))),
            ),
          ]),
        )
        .executeTakeFirst();
      if (Number(recorded.numUpdatedRows) === 1) return true;
      await db
        .updateTable('device_grants')
        .set((eb) => ({ poll_interval: eb('poll_interval', '+', 5), last_polled_at: now }))
        .where('id', '=', id)
        .execute();
      return false;
    },

    /** Decides a pending, unexpired grant; false when it was not pending any more (or expired). */
    async decide(id: string, decision: GrantDecision, now: number): Promise<boolean> {
      const updated = await db
        .updateTable('device_grants')
        .set({
          status: decision.status,
          device_id: decision.deviceId,
          account_number: decision.accountNumber,
          platform_user_id: decision.platformUserId,
          decided_by: decision.decidedBy,
          decided_at: now,
        })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    /** Takes an approved grant for its tokens, once: false when another poll took it first. */
    async redeem(id: string): Promise<boolean> {
      const updated = await db
        .updateTable('device_grants')
        .set({ status: 'redeemed' })
        .where('id', '=', id)
        .where('status', '=', 'approved')
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },
  };
}

export type DeviceGrantRepository = ReturnType<typeof createDeviceGrantRepository>;
