import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  // The retention job removes the chat agent's memory by age, across owners.
  await db.schema
    .createIndex('agent_chat_history_created')
    .on('agent_chat_history')
    .column('created_at')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('agent_chat_history_created').execute();
}
