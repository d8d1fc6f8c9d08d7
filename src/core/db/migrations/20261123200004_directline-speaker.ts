import type { Kysely } from 'kysely';

/**
 * The person a conversation of the embedded Direct Line channel speaks for: the assistant user that
 * `/token` or `/token/wss` bound it to (null: anonymous). Removing the user unbinds its conversations
 * (on delete set null), whichever way it goes: deletion, erasure by phone number or the expiry purge.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('directline_conversations')
    .addColumn('assistant_id', 'text', (column) =>
      column.references('assistant_users.assistant_id').onDelete('set null'),
    )
    .execute();
  // A user's removal finds its conversations by this index, not by a scan.
  await db.schema
    .createIndex('directline_conversations_assistant')
    .on('directline_conversations')
    .column('assistant_id')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('directline_conversations_assistant').execute();
  await db.schema.alterTable('directline_conversations').dropColumn('assistant_id').execute();
}
