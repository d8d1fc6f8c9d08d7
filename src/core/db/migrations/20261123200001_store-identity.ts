import type { Kysely } from 'kysely';

/**
 * What a store knows about itself, one row per fact: `master_key_fingerprint` (an HMAC of a constant under
 * the master key, never the key), recorded by the first process that opens the store.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('store_identity')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('value', 'text', (column) => column.notNull())
    .addColumn('recorded_at', 'bigint', (column) => column.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('store_identity').execute();
}
