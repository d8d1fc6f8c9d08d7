import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { StatementRunner } from '../../core/db/pipeline.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import {
  hotStatements,
  namedStatement,
  packedStatement,
  preparedRead,
  type RepositoryOptions,
} from '../accounts/prepared-read.ts';
import type { AccountTables } from '../accounts/tables.ts';
import { foldedSessionState, type SessionState } from '../sessions/repository.ts';

export type DeviceRow = AccountTables['devices'];

/** An account's devices read with a device session's check folded in (see SessionCheck in auth/principal.ts). */
export interface FoldedDeviceList {
  /** The session's state (undefined: no such session). */
  session: SessionState | undefined;
  /** False when the account does not exist. */
  account: boolean;
  devices: DeviceRow[];
}

export type ListInSession = (sessionId: string, accountNumber: string) => Promise<FoldedDeviceList>;

const deviceColumns = [
  'account_number',
  'device_id',
  'name',
  'device_class',
  'enabled',
  'registered_at',
  'activated_at',
  'last_seen_at',
  'last_playback_at',
] as const;

/** A folded list's row: the session's state, the account's number when it exists, one device's columns. */
type FoldedDeviceRow = {
  session_closed_at: number | null;
  session_last_used_at: number | null;
  found_account: string | null;
} & { [column in keyof DeviceRow]: DeviceRow[column] | null };

function foldedList(rows: FoldedDeviceRow[]): FoldedDeviceList {
  const devices: DeviceRow[] = [];
  for (const row of rows) {
    const { account_number, device_id, name, device_class, enabled, registered_at } = row;
    const { activated_at, last_seen_at, last_playback_at } = row;
    if (account_number === null || device_id === null || name === null || device_class === null) continue;
    if (enabled === null || registered_at === null || activated_at === null || last_seen_at === null)
      continue;
    devices.push({
      account_number,
      device_id,
      name,
      device_class,
      enabled,
      registered_at,
      activated_at,
      last_seen_at,
      last_playback_at,
    });
  }
  return {
    session: foldedSessionState(rows[0]),
    account: rows[0]?.found_account != null,
    devices,
  };
}

/** The device list of a device token, one named statement: its session, the account, the devices. */
function listInSessionPostgres(statements: StatementRunner): ListInSession {
  const statement = packedStatement<FoldedDeviceRow>(
    statements,
    'devices_list_in_session',
    [
      ['session_closed_at', 's.closed_at'],
      ['session_last_used_at', 's.last_used_at'],
      ['found_account', 'a.account_number'],
      ...deviceColumns.map((column) => [column, `d.${column}`] as const),
    ],
    `from sessions s
       left join accounts a on a.account_number = $2
       left join devices d on d.account_number = a.account_number
      where s.id = $1
      order by d.registered_at, d.device_id`,
  );
  return async (sessionId, accountNumber) => foldedList(await statement([sessionId, accountNumber]));
}

/** The Kysely twin of listInSessionPostgres. */
function listInSessionKysely(db: Kysely<CoreTables & AccountTables>): ListInSession {
  return async (sessionId, accountNumber) =>
    foldedList(
      await db
        .selectFrom('sessions as s')
        .leftJoin('accounts as a', (join) => join.on('a.account_number', '=', accountNumber))
        .leftJoin('devices as d', 'd.account_number', 'a.account_number')
        .select([
          's.closed_at as session_closed_at',
          's.last_used_at as session_last_used_at',
          'a.account_number as found_account',
        ])
        .select(deviceColumns.map((column) => `d.${column}` as const))
        .where('s.id', '=', sessionId)
        .orderBy('d.registered_at')
        .orderBy('d.device_id')
        .execute(),
    );
}

export function createDeviceRepository(database: Database, options: RepositoryOptions = {}) {
  const db = database.db.withTables<AccountTables>();
  const statements = hotStatements(database, options);
  return {
    /**
     * PostgreSQL only: the list of a device token with its session's check folded in, one round trip.
     * With `prepared: false`, its Kysely twin.
     */
    listInSession:
      database.dialect !== 'postgres'
        ? undefined
        : statements === undefined
          ? listInSessionKysely(db)
          : listInSessionPostgres(statements),

    /** The account's devices, oldest first: a benchmarked hot path. */
    list: preparedRead<DeviceRow[]>(
      database,
      options,
      (sqlite) => {
        const statement = sqlite.prepare<[string], DeviceRow>(
          'select * from devices where account_number = ? order by registered_at, device_id',
        );
        return (accountNumber) => statement.all(accountNumber);
      },
      (accountNumber) =>
        db
          .selectFrom('devices')
          .selectAll()
          .where('account_number', '=', accountNumber)
          .orderBy('registered_at')
          .orderBy('device_id')
          .execute(),
      (statements) => {
        const statement = namedStatement<DeviceRow>(
          statements,
          'devices_list',
          'select * from devices where account_number = $1 order by registered_at, device_id',
        );
        return (accountNumber) => statement([accountNumber]);
      },
    ),

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
