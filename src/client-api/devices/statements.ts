import type { Kysely } from 'kysely';
import { jsonList } from '../../core/db/json-list.ts';
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
 * The account's devices, one row per device (one row of nulls for an account without any): `found_account`
 * is null when the account does not exist. Ordered by `devicesOf`, as the listing is.
 */
export const devicesOfAccount = defineStatement(
  'devices_of_account',
  (db: Kysely<DeviceDatabase>, args: { accountNumber: string }) =>
    db
      .selectFrom('accounts as a')
      .leftJoin('devices as d', 'd.account_number', 'a.account_number')
      .select('a.account_number as found_account')
      .select(deviceColumns)
      .where('a.account_number', '=', args.accountNumber),
  { packed: true },
);

/** What a device list answers of each device (toDeviceBase): the columns a listing carries. */
const listedColumns = [
  'device_id',
  'name',
  'device_class',
  'enabled',
  'registered_at',
  'last_seen_at',
  'last_playback_at',
] as const;

export type DeviceListing = Pick<DeviceRow, (typeof listedColumns)[number]>;

const listing = jsonList<DeviceListing>('devices_listed_in_session', 'd', listedColumns);

/**
 * PostgreSQL: the list for a device token in one row, the session's state beside it (no row: no session):
 * `found_account` null when the account does not exist, `devices` the account's devices as one JSON value
 * (null for none), read back by `listedDevices`.
 */
export const devicesListedInSession = defineStatement(
  'devices_listed_in_session',
  (db: Kysely<DeviceDatabase>, args: { accountNumber: string; sessionId: string }) =>
    db
      .selectFrom('sessions as s')
      .select(['s.closed_at as session_closed_at', 's.last_used_at as session_last_used_at'])
      .select((eb) => [
        eb
          .selectFrom('accounts as a')
          .select('a.account_number')
          .where('a.account_number', '=', args.accountNumber)
          .as('found_account'),
        eb
          .selectFrom('devices as d')
          .select(listing.aggregate.as('devices'))
          .where('d.account_number', '=', args.accountNumber)
          .as('devices'),
      ])
      .where('s.id', '=', args.sessionId),
  { dialects: ['postgres'] },
);

/** The devices of a `devicesListedInSession` row's `devices`, oldest first. */
export function listedDevices(value: unknown[][] | null | undefined): DeviceListing[] {
  return listing.rows(value).sort(oldestFirst);
}

/**
 * Oldest first, by registration time and then device id (UTF-16 code units, the same on both stores and
 * whatever the database's collation): the order of every device list. Sorted here rather than by the
 * statements (see jsonList).
 */
function oldestFirst(a: DeviceListing, b: DeviceListing): number {
  if (a.registered_at !== b.registered_at) return a.registered_at - b.registered_at;
  return a.device_id < b.device_id ? -1 : a.device_id > b.device_id ? 1 : 0;
}

/** Every compiled device statement, for the snapshot of what each dialect runs (queries/). */
export const deviceStatements = [devicesOfAccount, devicesListedInSession];

/**
 * The devices of a list's rows. A left join gives either one row per device, each with every device column
 * set (they are NOT NULL in the table), or, for an account without devices, one row of nulls: so the first
 * row tells. The rows are used as they are (their extra columns unread), not copied.
 */
export function devicesOf(rows: ReadonlyArray<{ device_id: string | null }>): DeviceRow[] {
  return rows[0]?.device_id == null ? [] : (rows as unknown as DeviceRow[]).sort(oldestFirst);
}
