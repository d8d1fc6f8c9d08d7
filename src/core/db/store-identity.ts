import type { Kysely } from 'kysely';
import type { CoreTables } from './tables.ts';

/** Facts a store records about itself (table store_identity), each written once by the first process. */
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
  };
}
