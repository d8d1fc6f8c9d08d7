import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_chat_history')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('owner_hash', 'text', (column) => column.notNull())
    .addColumn('turn_id', 'text', (column) => column.notNull())
    .addColumn('position', 'integer', (column) => column.notNull())
    .addColumn('message', 'text', (column) => column.notNull())
    .addColumn('tokens', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('agent_chat_history_owner')
    .on('agent_chat_history')
    .columns(['owner_hash', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_chat_history').execute();
}
