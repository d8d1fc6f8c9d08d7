import type { Database } from '../../core/db/database.ts';
import type { AccountTables } from '../tables.ts';
import type { CommandRow, CommandTables } from './tables.ts';

/** A device of an account, as the streams and commands name it. */
export interface DeviceKey {
  accountNumber: string;
  deviceId: string;
}

/** Commands to devices, and which process holds each device's command stream (the store's presence). */
export function createCommandRepository(database: Database) {
  const db = database.db.withTables<CommandTables & Pick<AccountTables, 'sessions'>>();

  const ofDevice = (device: DeviceKey) =>
    db
      .selectFrom('device_commands')
      .where('account_number', '=', device.accountNumber)
      .where('device_id', '=', device.deviceId);

  return {
    async insert(row: CommandRow): Promise<void> {
      await db.insertInto('device_commands').values(row).execute();
    },

    find(device: DeviceKey, id: string): Promise<CommandRow | undefined> {
      return ofDevice(device).selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** The sender's commands sent since `since`: their count and the oldest one's time. */
    async sentBy(sender: string, since: number): Promise<{ count: number; oldest: number | null }> {
      const row = await db
        .selectFrom('device_commands')
        .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
        .where('sender', '=', sender)
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return { count: Number(row?.count ?? 0), oldest: row?.oldest == null ? null : Number(row.oldest) };
    },

    /** The device's commands neither acknowledged nor expired at `now`: their count and the first to expire. */
    async pending(device: DeviceKey, now: number): Promise<{ count: number; firstExpiry: number | null }> {
      const row = await ofDevice(device)
        .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('expires_at').as('first')])
        .where('created_at', '>', now - MAX_TTL_MS)
        .where('expires_at', '>', now)
        .where('state', '<>', 'acknowledged')
        .executeTakeFirst();
      return { count: Number(row?.count ?? 0), firstExpiry: row?.first == null ? null : Number(row.first) };
    },

    /**
     * Takes the device's commands not written to a stream yet and not expired, oldest first, and marks them
     * delivered in the same statement: two processes holding a stream of the device never both send one.
     */
    async claimUndelivered(device: DeviceKey, now: number): Promise<CommandRow[]> {
      const rows = await db
        .updateTable('device_commands')
        .set({ state: 'delivered', delivered_at: now })
        .where('account_number', '=', device.accountNumber)
        .where('device_id', '=', device.deviceId)
        .where('created_at', '>', now - MAX_TTL_MS)
        .where('state', '=', 'sent')
        .where('expires_at', '>', now)
        .returningAll()
        .execute();
      return rows.sort(oldestFirst);
    },

    /** The device's unexpired, unacknowledged commands sent after the command `afterId` (a resume). */
    async after(device: DeviceKey, afterId: string, now: number): Promise<CommandRow[]> {
      const last = await ofDevice(device)
        .select(['created_at', 'id'])
        .where('id', '=', afterId)
        .executeTakeFirst();
      if (!last) return [];
      const rows = await ofDevice(device)
        .selectAll()
        .where('created_at', '>=', last.created_at)
        .where('expires_at', '>', now)
        .where('state', '<>', 'acknowledged')
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.filter((row) => oldestFirst(row, last) > 0);
    },

    /** Marks the device's command acknowledged; false when it has no such command. */
    async acknowledge(device: DeviceKey, id: string, now: number): Promise<void> {
      await db
        .updateTable('device_commands')
        .set({ state: 'acknowledged', acknowledged_at: now })
        .where('account_number', '=', device.accountNumber)
        .where('device_id', '=', device.deviceId)
        .where('id', '=', id)
        .where('state', '<>', 'acknowledged')
        .execute();
    },

    /** This process holds the device's stream from now on. */
    async holdStream(device: DeviceKey, holder: string, now: number): Promise<void> {
      await db
        .insertInto('command_streams')
        .values({ account_number: device.accountNumber, device_id: device.deviceId, holder, seen_at: now })
        .onConflict((conflict) =>
          conflict.columns(['account_number', 'device_id', 'holder']).doUpdateSet({ seen_at: now }),
        )
        .execute();
    },

    async releaseStream(device: DeviceKey, holder: string): Promise<void> {
      await db
        .deleteFrom('command_streams')
        .where('account_number', '=', device.accountNumber)
        .where('device_id', '=', device.deviceId)
        .where('holder', '=', holder)
        .execute();
    },

    /** One statement for every stream the process holds: they are still there. */
    async refreshStreams(holder: string, now: number): Promise<void> {
      await db.updateTable('command_streams').set({ seen_at: now }).where('holder', '=', holder).execute();
    },

    /** The records of processes gone without releasing them (a crash), seen last before `before`. */
    async forgetStale(before: number): Promise<void> {
      await db.deleteFrom('command_streams').where('seen_at', '<', before).execute();
    },

    async releaseAll(holder: string): Promise<void> {
      await db.deleteFrom('command_streams').where('holder', '=', holder).execute();
    },

    /** Of these sessions, those closed (by their primary key). */
    async closedSessions(ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('sessions')
        .select('id')
        .where('id', 'in', ids)
        .where('closed_at', 'is not', null)
        .execute();
      return new Set(rows.map((row) => row.id));
    },

    /** Whether some process, seen at or after `since`, holds the device's stream. */
    async connected(device: DeviceKey, since: number): Promise<boolean> {
      const row = await db
        .selectFrom('command_streams')
        .select('holder')
        .where('account_number', '=', device.accountNumber)
        .where('device_id', '=', device.deviceId)
        .where('seen_at', '>=', since)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/** The longest COMMAND_TTL: bounds the scans of a device's commands to those that may still be live. */
export const MAX_TTL_MS = 86400 * 1000;

function oldestFirst(a: Pick<CommandRow, 'created_at' | 'id'>, b: Pick<CommandRow, 'created_at' | 'id'>) {
  if (a.created_at !== b.created_at) return Number(a.created_at) - Number(b.created_at);
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export type CommandRepository = ReturnType<typeof createCommandRepository>;
