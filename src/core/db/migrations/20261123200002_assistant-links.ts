import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  // The pay-TV account an assistant user is linked to (the gateway's account-linking callback).
  await db.schema.alterTable('assistant_users').addColumn('link_sealed', 'text').execute();
  await db.schema.alterTable('assistant_users').addColumn('linked_at', 'bigint').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('assistant_users').dropColumn('linked_at').execute();
  await db.schema.alterTable('assistant_users').dropColumn('link_sealed').execute();
}
