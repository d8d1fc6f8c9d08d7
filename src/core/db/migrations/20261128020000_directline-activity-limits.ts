import type { Kysely } from 'kysely';

/**
 * What each conversation of the embedded Direct Line channel holds and took this minute, on its own row:
 * the activity limits (docs/limits.md) are checked in the same update that numbers an activity, under the
 * row's lock, so every process counts alike and no scan of the activities is needed.
 */
const columns = ['activity_bytes', 'minute_start', 'minute_activities', 'minute_bytes'] as const;

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  for (const name of columns) {
    await db.schema
      .alterTable('directline_conversations')
      .addColumn(name, 'bigint', (column) => column.notNull().defaultTo(0))
      .execute();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [...columns].reverse()) {
    await db.schema.alterTable('directline_conversations').dropColumn(name).execute();
  }
}
