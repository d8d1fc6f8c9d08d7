import type { Database } from '../../core/db/database.ts';
import type { AccountTables } from '../tables.ts';

/** A live stream: a device's row with its stream columns set. */
export interface StreamRow {
  device_id: string;
  device_class: string;
  name: string;
  stream_content_id: number;
  stream_offset: number;
  stream_since: number;
  stream_reported_at: number;
}

export interface StreamStart {
  accountNumber: string;
  deviceId: string;
  contentId: number;
  offset: number;
  /** Now, epoch ms: the report's time. */
  at: number;
  /** A stream last reported before this (epoch ms) is over. */
  staleBefore: number;
  /** The limit of an account that has none of its own (PLAYBACK_STREAM_LIMIT). */
  defaultLimit: number;
  /** Another device of the account whose stream ends in the same transaction (a handoff): not counted. */
  replacing?: string;
}

export type StartOutcome =
  | { kind: 'started'; stream: StreamRow; limit: number; active: number }
  | { kind: 'refused'; limit: number; active: number }
  | { kind: 'no-account' }
  | { kind: 'no-device' };

/** A device's stream columns once it stopped. */
export const stoppedStream = {
  stream_content_id: null,
  stream_offset: null,
  stream_since: null,
  stream_reported_at: null,
};

const streamColumns = [
  'device_id',
  'device_class',
  'name',
  'stream_content_id',
  'stream_offset',
  'stream_since',
  'stream_reported_at',
] as const;

/**
 * Streams live in their devices' rows (one per device), an account's own limit in its row (null: the
 * default). A start counts the account's other live streams and writes its own in one transaction that
 * first locks the account's row, so two starts of one account, on any processes, are counted one after
 * the other (docs/decisions.md, "Household streams").
 */
export function createPlaybackRepository(database: Database) {
  const db = database.db.withTables<AccountTables>();

  return {
    start(start: StreamStart): Promise<StartOutcome> {
      const { accountNumber, deviceId, at } = start;
      return db.transaction().execute(async (trx) => {
        // PostgreSQL: the row lock, held to commit. SQLite has no FOR UPDATE: a write as the transaction's
        // first statement takes the store's write lock before anything is read (a read first would count
        // on a snapshot another process may write past).
        const account =
          database.dialect === 'postgres'
            ? await trx
                .selectFrom('accounts')
                .select('stream_limit')
                .where('account_number', '=', accountNumber)
                .forUpdate()
                .executeTakeFirst()
            : await trx
                .updateTable('accounts')
                .set((eb) => ({ stream_limit: eb.ref('stream_limit') }))
                .where('account_number', '=', accountNumber)
                .returning('stream_limit')
                .executeTakeFirst();
        if (!account) return { kind: 'no-account' };
        const limit = account.stream_limit ?? start.defaultLimit;
        const live = await trx
          .selectFrom('devices')
          .select(['device_id', 'stream_content_id', 'stream_since'])
          .where('account_number', '=', accountNumber)
          .where('stream_reported_at', '>=', start.staleBefore)
          .execute();
        const own = live.find((row) => row.device_id === deviceId);
        const replaced = live.some((row) => row.device_id === start.replacing && row.device_id !== deviceId);
        const others = live.length - (own ? 1 : 0) - (replaced ? 1 : 0);
        // The device's own live stream is counted already: it goes on (or changes content) whatever the limit.
        if (!own && others >= limit) return { kind: 'refused', limit, active: others };
        const since = own && own.stream_content_id === start.contentId ? (own.stream_since ?? at) : at;
        const row = await trx
          .updateTable('devices')
          .set({
            stream_content_id: start.contentId,
            stream_offset: start.offset,
            stream_since: since,
            stream_reported_at: at,
            last_playback_at: at,
            last_seen_at: at,
          })
          .where('account_number', '=', accountNumber)
          .where('device_id', '=', deviceId)
          .returning(streamColumns)
          .executeTakeFirst();
        if (!row) return { kind: 'no-device' };
        if (start.replacing !== undefined && start.replacing !== deviceId) {
          await trx
            .updateTable('devices')
            .set(stoppedStream)
            .where('account_number', '=', accountNumber)
            .where('device_id', '=', start.replacing)
            .execute();
        }
        return { kind: 'started', stream: row as StreamRow, limit, active: others + 1 };
      });
    },

    /** The device's stream is over (idempotent). */
    async stop(accountNumber: string, deviceId: string): Promise<void> {
      await db
        .updateTable('devices')
        .set(stoppedStream)
        .where('account_number', '=', accountNumber)
        .where('device_id', '=', deviceId)
        .execute();
    },

    /**
     * The account's limit (null: its own is not set) and live streams, in one statement; undefined when the
     * account does not exist.
     */
    async watching(
      accountNumber: string,
      staleBefore: number,
    ): Promise<{ limit: number | null; streams: StreamRow[] } | undefined> {
      const rows = await db
        .selectFrom('accounts as a')
        .leftJoin('devices as d', (join) =>
          join
            .onRef('d.account_number', '=', 'a.account_number')
            .on('d.stream_reported_at', '>=', staleBefore),
        )
        .select(['a.stream_limit', ...streamColumns.map((column) => `d.${column}` as const)])
        .where('a.account_number', '=', accountNumber)
        .execute();
      const first = rows[0];
      if (first === undefined) return undefined;
      const streams = rows.filter((row) => row.device_id !== null) as unknown as StreamRow[];
      streams.sort((a, b) => a.stream_since - b.stream_since || (a.device_id < b.device_id ? -1 : 1));
      return { limit: first.stream_limit, streams };
    },

    /** Sets the account's own limit; false when there is no such account. */
    async setLimit(accountNumber: string, limit: number): Promise<boolean> {
      const result = await db
        .updateTable('accounts')
        .set({ stream_limit: limit })
        .where('account_number', '=', accountNumber)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Live streams of every account (the /metrics gauge), by the index on stream_reported_at. */
    async liveCount(staleBefore: number): Promise<number> {
      const row = await db
        .selectFrom('devices')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('stream_reported_at', '>=', staleBefore)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },
  };
}

export type PlaybackRepository = ReturnType<typeof createPlaybackRepository>;
