import type { Database } from '../../core/db/database.ts';
import { bindStatement } from '../../core/db/statement.ts';
import type { SessionGate, SessionRef } from '../auth/session-gate.ts';
import { sessionStateOf } from '../sessions/repository.ts';
import type { AccountTables } from '../tables.ts';
import {
  type DeviceListing,
  type DeviceRow,
  devicesListedInSession,
  devicesOf,
  devicesOfAccount,
  listedDevices,
} from './statements.ts';

export type { DeviceListing, DeviceRow };

export function createDeviceRepository(database: Database, gate: SessionGate) {
  const db = database.db.withTables<AccountTables>();
  const ofAccount = bindStatement(database, devicesOfAccount);
  const listedInSession =
    database.dialect === 'postgres' ? bindStatement(database, devicesListedInSession) : undefined;

  /** Every column of the account's devices, oldest first; undefined when the account does not exist. */
  async function all(accountNumber: string): Promise<DeviceRow[] | undefined> {
    const rows = await ofAccount({ accountNumber });
    if (rows[0]?.found_account == null) return undefined;
    return devicesOf(rows);
  }

  return {
    /**
     * The account's devices (what a list answers of each), oldest first; undefined when the account does not
     * exist. With `as`, the caller is a device token whose session must be open and not idle, else 401
     * TOKEN_INVALID: on PostgreSQL read in the same statement (one round trip), on SQLite checked first (see
     * SessionGate).
     */
    async list(accountNumber: string, as?: SessionRef): Promise<DeviceListing[] | undefined> {
      if (as === undefined || listedInSession === undefined) {
        if (as !== undefined) await gate.check(as);
        return all(accountNumber);
      }
      const { now } = gate.bound();
      const [row] = await listedInSession({ accountNumber, sessionId: as.sessionId });
      await gate.accept(as, sessionStateOf(row), now);
      if (row?.found_account == null) return undefined;
      return listedDevices(row.devices);
    },

    all,

    async find(accountNumber: string, deviceId: string): Promise<DeviceRow | undefined> {
      return db
        .selectFrom('devices')
        .selectAll()
        .where('account_number', '=', accountNumber)
        .where('device_id', '=', deviceId)
        .executeTakeFirst();
    },

    /** False when the device exists already (a concurrent first sign-in). */
    async insert(row: DeviceRow): Promise<boolean> {
      const result = await db
        .insertInto('devices')
        .values(row)
        .onConflict((conflict) => conflict.columns(['account_number', 'device_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async countEnabled(accountNumber: string): Promise<number> {
      const row = await db
        .selectFrom('devices')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('account_number', '=', accountNumber)
        .where('enabled', '=', 1)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    async update(
      accountNumber: string,
      deviceId: string,
      changes: Partial<Pick<DeviceRow, 'name' | 'enabled' | 'activated_at' | 'last_seen_at'>>,
    ): Promise<boolean> {
      const result = await db
        .updateTable('devices')
        .set(changes)
        .where('account_number', '=', accountNumber)
        .where('device_id', '=', deviceId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async remove(accountNumber: string, deviceIds: string[]): Promise<number> {
      if (deviceIds.length === 0) return 0;
      const result = await db
        .deleteFrom('devices')
        .where('account_number', '=', accountNumber)
        .where('device_id', 'in', deviceIds)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * Records that the device saved a playback position at `at` (epoch ms). Called by the bookmark
     * save; `playing` in DeviceBase and GET …/devices/playing read it.
     */
    async markPlaying(accountNumber: string, deviceId: string, at: number): Promise<void> {
      await db
        .updateTable('devices')
        .set({ last_playback_at: at, last_seen_at: at })
        .where('account_number', '=', accountNumber)
        .where('device_id', '=', deviceId)
        .execute();
    },

    /** Ids of the account's devices that saved a position at or after `since`. */
    async playingSince(accountNumber: string, since: number): Promise<string[]> {
      const rows = await db
        .selectFrom('devices')
        .select('device_id')
        .where('account_number', '=', accountNumber)
        .where('last_playback_at', '>=', since)
        .orderBy('device_id')
        .execute();
      return rows.map((row) => row.device_id);
    },
  };
}

export type DeviceRepository = ReturnType<typeof createDeviceRepository>;
