import { type Kysely, sql } from 'kysely';

/**
 * Indexes that keep the retention job's batches (src/core/db/retention.ts) and the purges off a sequential
 * scan: each finds the rows past their retention by the time column its rule reads. Closed sessions are
 * few beside open ones, so their index holds the closed only. None is on a column a hot path updates
 * (a session's last_used_at, a bookmark's times), so those updates stay as cheap as before.
 */
const indexes: Array<{ name: string; table: string; column: string; partial?: boolean }> = [
  { name: 'audit_log_at', table: 'audit_log', column: 'at' },
  { name: 'sessions_closed', table: 'sessions', column: 'closed_at', partial: true },
  { name: 'sessions_refresh_expires', table: 'sessions', column: 'refresh_expires_at' },
  { name: 'mail_outbox_created', table: 'mail_outbox', column: 'created_at' },
  { name: 'registration_requests_created', table: 'registration_requests', column: 'created_at' },
  { name: 'ad_contacts_created', table: 'ad_contacts', column: 'created_at' },
  { name: 'rate_limit_counters_window', table: 'rate_limit_counters', column: 'window_start' },
  { name: 'assistant_users_expires', table: 'assistant_users', column: 'expires_at' },
  { name: 'assistant_callback_nonces_expires', table: 'assistant_callback_nonces', column: 'expires_at' },
  { name: 'agent_confirmations_expires', table: 'agent_confirmations', column: 'expires_at' },
];

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  for (const { name, table, column, partial } of indexes) {
    let index = db.schema.createIndex(name).on(table).column(column);
    if (partial) index = index.where(sql.ref(column), 'is not', null);
    await index.execute();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const { name } of [...indexes].reverse()) await db.schema.dropIndex(name).execute();
}
