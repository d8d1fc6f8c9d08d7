import type { Database } from '../../core/db/database.ts';
import type { LoginThrottleTables } from './tables.ts';

export interface LoginThrottleRepository {
  /**
   * Counts one attempt in the bucket's window in a single upsert, so concurrent attempts from any number
   * of processes are all counted; a window that ended starts over at 1. Answers the count and its window.
   */
  count(bucket: string, now: number, windowMs: number): Promise<{ failures: number; windowStart: number }>;
  /** A success: the user name's count starts over. */
  clear(bucket: string): Promise<void>;
  /** Takes back one counted attempt (one that turned out right). */
  uncount(bucket: string): Promise<void>;
  /** Windows that ended no longer limit anyone. */
  dropEnded(before: number): Promise<void>;
}

export function createLoginThrottleRepository(database: Database): LoginThrottleRepository {
  const db = database.db.withTables<LoginThrottleTables>();
  return {
    async count(bucket, now, windowMs) {
      const ended = now - windowMs;
      const row = await db
        .insertInto('login_failures')
        .values({ bucket, failures: 1, window_start: now })
        .onConflict((conflict) =>
          conflict.column('bucket').doUpdateSet((eb) => {
            const over = eb('login_failures.window_start', '<=', eb.lit(ended));
            return {
              failures: eb
                .case()
                .when(over)
                .then(eb.lit(1))
                .else(eb('login_failures.failures', '+', eb.lit(1)))
                .end(),
              window_start: eb
                .case()
                .when(over)
                .then(eb.lit(now))
                .else(eb.ref('login_failures.window_start'))
                .end(),
            };
          }),
        )
        .returning(['failures', 'window_start'])
        .executeTakeFirstOrThrow();
      return { failures: Number(row.failures), windowStart: Number(row.window_start) };
    },
    async clear(bucket) {
      await db.deleteFrom('login_failures').where('bucket', '=', bucket).execute();
    },
    async uncount(bucket) {
      await db
        .updateTable('login_failures')
        .set((eb) => ({ failures: eb('failures', '-', 1) }))
        .where('bucket', '=', bucket)
        .where('failures', '>', 0)
        .execute();
    },
    async dropEnded(before) {
      await db.deleteFrom('login_failures').where('window_start', '<=', before).execute();
    },
  };
}
