import type { Kysely } from 'kysely';

/**
 * Files uploaded to a conversation of the embedded Direct Line channel (`POST …/upload`). The content is
 * base64 text, so both dialects store it alike; the rows go with their conversation's retention purge.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('directline_uploads')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('conversation_id', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('size', 'bigint', (column) => column.notNull())
    .addColumn('content', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('directline_uploads_conversation')
    .on('directline_uploads')
    .column('conversation_id')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('directline_uploads').execute();
}
