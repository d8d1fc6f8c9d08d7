import type { Kysely } from 'kysely';

/**
 * The embedded Direct Line channel: conversations and their activities. `last_seq` is the conversation's
 * last activity sequence number (the watermark); activities are numbered under a row lock on it. A user
 * message waits for the agent's answer with `answer_state` 'pending' under a claim (`claimed_by` until
 * `claimed_until`) of the process calling the agent; a claim that runs out is taken over, so a crash loses no answer.
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
    .addColumn('answer_state', 'text')
    .addColumn('claimed_until', 'bigint')
    .addColumn('claimed_by', 'text')
    .addPrimaryKeyConstraint('directline_activities_pk', ['conversation_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('directline_activities_awaiting')
    .on('directline_activities')
    .columns(['answer_state', 'claimed_until'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('directline_activities').execute();
  await db.schema.dropTable('directline_conversations').execute();
}
