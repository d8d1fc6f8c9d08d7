import type { Database } from '../../core/db/database.ts';
import { prepared } from '../../core/db/prepared.ts';
import type { AccountTables } from '../tables.ts';

/** A device without its stream (the playback module's columns, playback/repository.ts). */
export type DeviceRow = Omit<
  AccountTables['devices'],
  'stream_content_id' | 'stream_offset' | 'stream_since' | 'stream_reported_at'
>;

const allColumns = [
  'account_number',
  'device_id',
  'name',
  'device_class',
  'enabled',
  'registered_at',
  'activated_at',
  'last_seen_at',
  'last_playback_at',
] as const satisfies ReadonlyArray<keyof DeviceRow>;

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

/**
 * Oldest first, by registration time and then device id (UTF-16 code units, the same on both stores and
 * whatever the database's collation): the order of every device list.
 */
function oldestFirst(a: DeviceListing, b: DeviceListing): number {
  if (a.registered_at !== b.registered_at) return a.registered_at - b.registered_at;
  return a.device_id < b.device_id ? -1 : a.device_id > b.device_id ? 1 : 0;
}

/** The left join's rows: none for no such account, one of nulls for an account without devices. */
function withoutNulls<R>(rows: R[]): R[] | undefined {
  if (rows.length === 0) return undefined;
  const first = rows[0] as { device_id?: string | null };
  return first.device_id == null ? [] : rows;
}

export function createDeviceRepository(database: Database) {
  const db = database.db.withTables<AccountTables>();

  /**
   * The account's devices with `columns`, in one statement: a left join answers one row per device, or for
   * an account without devices one row of nulls (the first row tells), and no row for an account that does
   * not exist (undefined). Prepared once (core/db/prepared.ts): a device list is on a user's hot paths.
   */
  function ofAccount<C extends keyof DeviceRow & string>(columns: readonly C[]) {
    const query = prepared<{ accountNumber: string }, Pick<DeviceRow, C>>(database, (arg) =>
      db
        .selectFrom('accounts as a')
        .leftJoin('devices as d', 'd.account_number', 'a.account_number')
        .select(columns.map((column) => `d.${column}` as const))
        .where('a.account_number', '=', arg('accountNumber')),
    );
    return async (accountNumber: string): Promise<Pick<DeviceRow, C>[] | undefined> =>
      withoutNulls(await query.all({ accountNumber }));
  }
  const listed = ofAccount(listedColumns);
  const every = ofAccount(allColumns);

  return {
    /** What a list answers of each of the account's devices, oldest first; undefined: no such account. */
    async list(accountNumber: string): Promise<DeviceListing[] | undefined> {
      return (await listed(accountNumber))?.sort(oldestFirst);
    },

    /** Every column of the account's devices, oldest first; undefined when the account does not exist. */
    async all(accountNumber: string): Promise<DeviceRow[] | undefined> {
      return (await every(accountNumber))?.sort(oldestFirst);
    },

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
     * save; `playing` in DeviceBase and GET …/devices/playing read it. With `stream`, the same statement
     * reports the device's stream when it is live (reported since `staleBefore`): it stays alive and moves
     * to the saved content and position (a new content item starts anew). A stream that is over stays so.
     */
    async markPlaying(
      accountNumber: string,
      deviceId: string,
      at: number,
      stream?: { contentId: number; offset: number; staleBefore: number },
    ): Promise<void> {
      await db
        .updateTable('devices')
        .set((eb) => {
          if (stream === undefined) return { last_playback_at: at, last_seen_at: at };
          const live = eb('stream_reported_at', '>=', stream.staleBefore);
          // Bound values, not literals: one statement text whatever the device, time and position.
          const ifLive = <C extends 'stream_reported_at' | 'stream_content_id' | 'stream_offset'>(
            column: C,
            value: number,
          ) => eb.case().when(live).then(eb.val(value)).else(eb.ref(column)).end();
          return {
            last_playback_at: at,
            last_seen_at: at,
            stream_reported_at: ifLive('stream_reported_at', at),
            stream_content_id: ifLive('stream_content_id', stream.contentId),
            stream_offset: ifLive('stream_offset', stream.offset),
            stream_since: eb
              .case()
              .when(eb.and([live, eb('stream_content_id', '<>', stream.contentId)]))
              .then(eb.val(at))
              .else(eb.ref('stream_since'))
              .end(),
          };
        })
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
