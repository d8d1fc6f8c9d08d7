import type { Database } from '../db/database.ts';
import { bigint, integer, type TableTypes, text } from '../db/table-columns.ts';

/** The windowed counters' table, created with client-api's (migration 20261122082000_client-content). */
const counterColumns = {
  rate_limit_counters: { bucket: text(), window_start: bigint(), hits: integer() },
} as const;
type CounterTables = TableTypes<typeof counterColumns>;

/** What a counted amount left in its window: the window's total and the seconds until it ends. */
export interface WindowCount {
  total: number;
  retryAfter: number;
}

/**
 * Fixed windows counted in the store (one upsert, so every process sees the same total on PostgreSQL):
 * the counter of the limits that must hold across processes (docs/limits.md).
 */
export interface StoreCounter {
  /** Adds `amount` to the bucket's current window of `windowSeconds` and answers the window's total. */
  add(bucket: string, amount: number, windowSeconds: number, now?: number): Promise<WindowCount>;
}

/** Ended windows are deleted at most this often per process, on the way of a count. */
const PRUNE_EVERY_MS = 60_000;
/** Windows older than this are over for every limit that counts here (registration's hour included). */
const KEEP_MS = 2 * 3_600_000;

export function createStoreCounter(database: Database): StoreCounter {
  const db = database.db.withTables<CounterTables>();
  let prunedAt = 0;
  return {
    async add(bucket, amount, windowSeconds, now = Date.now()) {
      if (now - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = now;
        await db
          .deleteFrom('rate_limit_counters')
          .where('window_start', '<', now - KEEP_MS)
          .execute();
      }
      const windowMs = windowSeconds * 1000;
      const windowStart = now - (now % windowMs);
      const row = await db
        .insertInto('rate_limit_counters')
        .values({ bucket, window_start: windowStart, hits: amount })
        .onConflict((conflict) =>
          conflict
            .columns(['bucket', 'window_start'])
            .doUpdateSet((eb) => ({ hits: eb('rate_limit_counters.hits', '+', amount) })),
        )
        .returning('hits')
        .executeTakeFirstOrThrow();
      return {
        total: Number(row.hits),
        retryAfter: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
      };
    },
  };
}
