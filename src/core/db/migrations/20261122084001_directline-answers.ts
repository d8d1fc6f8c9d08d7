import type { Kysely } from 'kysely';

/**
 * A user message waits for the agent's answer with `answer_state` 'pending' under a claim (`claimed_by`
 * until `claimed_until`) of the process calling the agent; a claim that runs out is taken over, so a
 * crash loses no answer. 'done' once the answer (or the error activity) is stored; null for the rest.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('directline_activities').addColumn('answer_state', 'text').execute();
  await db.schema.alterTable('directline_activities').addColumn('claimed_until', 'bigint').execute();
  await db.schema.alterTable('directline_activities').addColumn('claimed_by', 'text').execute();
  await db.schema
    .createIndex('directline_activities_awaiting')
    .on('directline_activities')
    .columns(['answer_state', 'claimed_until'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('directline_activities_awaiting').execute();
  for (const column of ['claimed_by', 'claimed_until', 'answer_state']) {
    await db.schema.alterTable('directline_activities').dropColumn(column).execute();
  }
}
