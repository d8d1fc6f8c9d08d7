import type { Kysely } from 'kysely';

/**
 * The client API's content tables: bookmarks, ratings, the registration requests with their rate-limit
 * counters, the durable mail outbox, advertising contacts, subscriptions and the local ad-break table.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bookmarks')
    .addColumn('user_hash', 'text', (column) => column.notNull())
    .addColumn('content_id', 'bigint', (column) => column.notNull())
    .addColumn('account_number', 'text')
    .addColumn('version', 'text')
    .addColumn('offset_seconds', 'integer', (column) => column.notNull())
    .addColumn('position_at', 'bigint', (column) => column.notNull())
    .addColumn('device_id', 'text', (column) => column.notNull())
    .addColumn('device_class', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('bookmarks_pk', ['user_hash', 'content_id'])
    .execute();

  await db.schema
    .createTable('ratings')
    .addColumn('module', 'text', (column) => column.notNull())
    .addColumn('content_id', 'bigint', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('account_number', 'text')
    .addColumn('rating', 'integer', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('ratings_pk', ['module', 'content_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('bucket', 'text', (column) => column.notNull())
    .addColumn('window_start', 'bigint', (column) => column.notNull())
    .addColumn('hits', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['bucket', 'window_start'])
    .execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('sealed_message', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull())
    .addColumn('next_attempt_at', 'bigint', (column) => column.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('sent_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createIndex('mail_outbox_due')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('registration_requests')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('device_class', 'text', (column) => column.notNull())
    .addColumn('email_hash', 'text', (column) => column.notNull())
    .addColumn('outbox_id', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('ad_contacts')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_number', 'text', (column) => column.notNull())
    .addColumn('device_class', 'text', (column) => column.notNull())
    .addColumn('campaign', 'text', (column) => column.notNull())
    .addColumn('media_player_id', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('ad_contacts_account')
    .on('ad_contacts')
    .columns(['account_number', 'campaign'])
    .execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('platform_user_id', 'text', (column) => column.notNull())
    .addColumn('cod_persona', 'text', (column) => column.notNull())
    .addColumn('cod_oferta', 'text', (column) => column.notNull())
    .addColumn('account_number', 'text', (column) => column.notNull())
    .addColumn('product', 'text', (column) => column.notNull())
    .addColumn('enabled', 'integer', (column) => column.notNull())
    .addColumn('enabled_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('subscriptions_pk', ['platform_user_id', 'cod_persona', 'cod_oferta'])
    .execute();
  await db.schema
    .createIndex('subscriptions_account_offer')
    .on('subscriptions')
    .columns(['account_number', 'cod_oferta'])
    .execute();

  await db.schema
    .createTable('ad_breaks')
    .addColumn('contents', 'text', (column) => column.notNull())
    .addColumn('content_id', 'text', (column) => column.notNull())
    .addColumn('position', 'text', (column) => column.notNull())
    .addColumn('offset_seconds', 'integer', (column) => column.notNull())
    .addColumn('max_ads', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('ad_breaks_pk', ['contents', 'content_id', 'position', 'offset_seconds'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'ad_breaks',
    'subscriptions',
    'ad_contacts',
    'registration_requests',
    'mail_outbox',
    'rate_limit_counters',
    'ratings',
    'bookmarks',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
