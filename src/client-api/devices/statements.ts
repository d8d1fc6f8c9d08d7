import type { Kysely } from 'kysely';
import { defineStatement } from '../../core/db/statement.ts';
import type { AccountTables } from '../tables.ts';

export type DeviceRow = AccountTables['devices'];

type DeviceDatabase = Pick<AccountTables, 'accounts' | 'devices' | 'sessions'>;

/** A device's columns as `d.<column>`: each statement below selects them all, by name. */
const deviceColumns = [
  'd.account_number',
  'd.device_id',
  'd.name',
  'd.device_class',
  'd.enabled',
  'd.registered_at',
  'd.activated_at',
  'd.last_seen_at',
  'd.last_playback_at',
] as const;

/**
 * The account's devices, oldest first, one row per device (one row of nulls for an account without any):
 * `found_account` is null when the account does not exist.
 */
export const devicesOfAccount = defineStatement(
  'devices_of_account',
  (db: Kysely<DeviceDatabase>, args: { accountNumber: string }) =>
    db
      .selectFrom('accounts as a')
      .leftJoin('devices as d', 'd.account_number', 'a.account_number')
      .select('a.account_number as found_account')
      .select(deviceColumns)
      .where('a.account_number', '=', args.accountNumber)
      .orderBy('d.registered_at')
      .orderBy('d.device_id'),
  { packed: true },
);

/** PostgreSQL: the same list for a device, its session's state beside every row (no row: no session). */
export const devicesOfAccountInSession = defineStatement(
  'devices_of_account_in_session',
  (db: Kysely<DeviceDatabase>, args: { accountNumber: string; sessionId: string }) =>
    db
      .selectFrom('sessions as s')
      .leftJoin('accounts as a', (join) => join.on('a.account_number', '=', args.accountNumber))
      .leftJoin('devices as d', 'd.account_number', 'a.account_number')
      .select(['s.closed_at as session_closed_at', 's.last_used_at as session_last_used_at'])
      .select('a.account_number as found_account')
      .select(deviceColumns)
      .where('s.id', '=', args.sessionId)
      .orderBy('d.registered_at')
      .orderBy('d.device_id'),
  { dialects: ['postgres'], packed: true },
);

/** Every compiled device statement, for the snapshot of what each dialect runs (queries/). */
export const deviceStatements = [devicesOfAccount, devicesOfAccountInSession];

/**
 * The devices of a list's rows. A left join gives either one row per device, each with every device column
 * set (they are NOT NULL in the table), or, for an account without devices, one row of nulls: so the first
 * row tells. The rows are used as they are (their extra columns unread), not copied.
 */
export function devicesOf(rows: ReadonlyArray<{ device_id: string | null }>): DeviceRow[] {
  return rows[0]?.device_id == null ? [] : (rows as unknown as DeviceRow[]);
}
