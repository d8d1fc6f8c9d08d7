import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_confirmations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('owner_hash', 'text', (column) => column.notNull())
    .addColumn('tool', 'text', (column) => column.notNull())
    .addColumn('arguments_sealed', 'text', (column) => column.notNull())
    .addColumn('arguments_hash', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('settled_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('agent_confirmations_owner')
    .on('agent_confirmations')
    .columns(['owner_hash', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_confirmations').execute();
}
