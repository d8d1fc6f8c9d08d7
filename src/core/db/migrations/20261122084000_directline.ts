import type { Kysely } from 'kysely';

/**
 * The embedded Direct Line channel: conversations and their activities. `last_seq` is the conversation's
 * last activity sequence number (the watermark); activities are numbered under a row lock on it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('directline_conversations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('last_seq', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('last_activity_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('directline_conversations_last_activity')
    .on('directline_conversations')
    .column('last_activity_at')
    .execute();
  await db.schema
    .createTable('directline_activities')
    .addColumn('conversation_id', 'text', (column) => column.notNull())
    .addColumn('seq', 'bigint', (column) => column.notNull())
    .addColumn('id', 'text', (column) => column.notNull())
    .addColumn('activity', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('directline_activities_pk', ['conversation_id', 'seq'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('directline_activities').execute();
  await db.schema.dropTable('directline_conversations').execute();
}
