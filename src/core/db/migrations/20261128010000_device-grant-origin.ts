import type { Kysely } from 'kysely';

/**
 * Where a TV sign-in was asked from, coarsely (an IPv4 /24 or IPv6 /48): shown to the person who approves
 * it beside when it was asked. Grants asked before this migration have none and are shown as unknown.
 * And the index that counts an account's refusals (DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('device_grants').addColumn('requested_from', 'text').execute();
  await db.schema
    .createIndex('device_grants_account')
    .on('device_grants')
    .columns(['account_number', 'expires_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('device_grants_account').execute();
  await db.schema.alterTable('device_grants').dropColumn('requested_from').execute();
}
