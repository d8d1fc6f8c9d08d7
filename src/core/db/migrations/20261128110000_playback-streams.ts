import type { Kysely } from 'kysely';

/**
 * Streams (issue 43): a device plays one stream at a time, so its stream is four columns of its own row
 * (what, where, since when, last report) rather than a table of its own: the bookmark save's playing mark,
 * one statement on that row, also keeps the stream alive (docs/decisions.md, "Household streams").
 * An account's own stream limit, set by an operator; null: PLAYBACK_STREAM_LIMIT. The index counts the live
 * streams of every account (the /metrics gauge) by the time of their last report.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('stream_limit', 'integer').execute();
  await db.schema.alterTable('devices').addColumn('stream_content_id', 'bigint').execute();
  await db.schema.alterTable('devices').addColumn('stream_offset', 'integer').execute();
  await db.schema.alterTable('devices').addColumn('stream_since', 'bigint').execute();
  await db.schema.alterTable('devices').addColumn('stream_reported_at', 'bigint').execute();
  await db.schema.createIndex('devices_stream_reported').on('devices').column('stream_reported_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('devices_stream_reported').execute();
  for (const column of ['stream_reported_at', 'stream_since', 'stream_offset', 'stream_content_id']) {
    await db.schema.alterTable('devices').dropColumn(column).execute();
  }
  await db.schema.alterTable('accounts').dropColumn('stream_limit').execute();
}
