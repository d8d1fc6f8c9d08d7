import type { Kysely, Transaction } from 'kysely';
import type { CoreTables } from '../db/tables.ts';

export type ApiKeyRow = CoreTables['api_keys'];

/**
 * The api_keys table; the rules (secrets, hashing, verification) are in api-keys.ts. Every call runs on
 * the store's connection, or inside `trx` when the caller holds a transaction.
 */
export function createApiKeyRepository(db: Kysely<CoreTables>) {
  return {
    async insert(row: ApiKeyRow, trx?: Transaction<CoreTables>): Promise<void> {
      await (trx ?? db).insertInto('api_keys').values(row).execute();
    },

    /** Inserts the row unless a key with its id exists (revoked or not); true when it inserted. */
    async insertIfAbsent(row: ApiKeyRow): Promise<boolean> {
      const result = await db
        .insertInto('api_keys')
        .values(row)
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    /** Oldest first; the id orders keys created in the same millisecond. */
    listAll(trx?: Transaction<CoreTables>): Promise<ApiKeyRow[]> {
      return (trx ?? db).selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
    },

    /** One primary-key read. */
    findById(id: string, trx?: Transaction<CoreTables>): Promise<ApiKeyRow | undefined> {
      return (trx ?? db).selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async exists(id: string, trx?: Transaction<CoreTables>): Promise<boolean> {
      const row = await (trx ?? db)
        .selectFrom('api_keys')
        .select('id')
        .where('id', '=', id)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Revokes the key at `at`; false when there is no such key or it was already revoked. */
    async markRevoked(id: string, at: number, trx?: Transaction<CoreTables>): Promise<boolean> {
      const result = await (trx ?? db)
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async recordUse(id: string, at: number, trx?: Transaction<CoreTables>): Promise<void> {
      await (trx ?? db).updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
