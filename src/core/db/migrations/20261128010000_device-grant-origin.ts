import type { Kysely } from 'kysely';

/**
 * Where a TV sign-in was asked from, coarsely (an IPv4 /24 or IPv6 /48): shown to the person who approves
 * it beside when it was asked. Grants asked before this migration have none and are shown as unknown.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('device_grants').addColumn('requested_from', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('device_grants').dropColumn('requested_from').execute();
}
