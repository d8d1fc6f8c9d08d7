import { type Kysely, sql } from 'kysely';
import type { CoreTables } from './tables.ts';

/**
 * Facts a store records about itself (table store_identity): the master key's fingerprint, written once by
 * the first process and moved only by `master-key rotate`, and the carried keys (src/core/keys/).
 */
export function createStoreIdentityRepository(db: Kysely<CoreTables>) {
  return {
    /**
     * The value recorded under `name`: `value` if nobody recorded one yet, else the earlier one. Two
     * processes recording at once both read back the one value that won.
     */
    async recordOnce(name: string, value: string, at: number): Promise<string> {
      await db
        .insertInto('store_identity')
        .values({ name, value, recorded_at: at })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .execute();
      const row = await db
        .selectFrom('store_identity')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      return row.value;
    },
    /** Every fact whose name starts with `prefix`. */
    async readPrefix(prefix: string): Promise<Array<{ name: string; value: string }>> {
      return db
        .selectFrom('store_identity')
        .select(['name', 'value'])
        .where(sql`substr(name, 1, ${prefix.length})`, '=', prefix)
        .orderBy('name')
        .execute();
    },
    /** Records `value` under `name`, replacing what was there. */
    async put(name: string, value: string, at: number): Promise<void> {
      await db
        .insertInto('store_identity')
        .values({ name, value, recorded_at: at })
        .onConflict((conflict) => conflict.column('name').doUpdateSet({ value, recorded_at: at }))
        .execute();
    },
    /** Replaces the value under `name` if it is still `expected`; false if it was not (nothing written). */
    async replace(name: string, expected: string, value: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('store_identity')
        .set({ value, recorded_at: at })
        .where('name', '=', name)
        .where('value', '=', expected)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
