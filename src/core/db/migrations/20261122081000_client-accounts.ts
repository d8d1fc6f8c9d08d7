import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('account_number', 'text', (column) => column.primaryKey())
    .addColumn('user_code', 'text', (column) => column.notNull().unique())
    .addColumn('user_hash', 'text', (column) => column.notNull().unique())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('users')
    .addColumn('platform_user_id', 'text', (column) => column.primaryKey())
    .addColumn('account_number', 'text', (column) =>
      column.notNull().references('accounts.account_number').onDelete('cascade'),
    )
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('password_hash', 'text', (column) => column.notNull())
    .addColumn('profiles', 'text', (column) => column.notNull())
    .addColumn('subscriptions', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addUniqueConstraint('users_account_email', ['account_number', 'email'])
    .execute();
  await db.schema.createIndex('users_email').on('users').column('email').execute();
  await db.schema
    .createTable('devices')
    .addColumn('account_number', 'text', (column) =>
      column.notNull().references('accounts.account_number').onDelete('cascade'),
    )
    .addColumn('device_id', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('device_class', 'text', (column) => column.notNull())
    .addColumn('enabled', 'integer', (column) => column.notNull())
    .addColumn('registered_at', 'bigint', (column) => column.notNull())
    .addColumn('activated_at', 'bigint', (column) => column.notNull())
    .addColumn('last_seen_at', 'bigint', (column) => column.notNull())
    .addColumn('last_playback_at', 'bigint')
    .addPrimaryKeyConstraint('devices_pk', ['account_number', 'device_id'])
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_number', 'text', (column) => column.notNull())
    .addColumn('device_id', 'text', (column) => column.notNull())
    .addColumn('device_class', 'text', (column) => column.notNull())
    .addColumn('platform_user_id', 'text', (column) => column.notNull())
    .addColumn('qsp_version', 'text', (column) => column.notNull())
    .addColumn('refresh_hash', 'text', (column) => column.notNull())
    .addColumn('refresh_expires_at', 'bigint', (column) => column.notNull())
    .addColumn('tier', 'text')
    .addColumn('scope', 'text')
    .addColumn('user_profile', 'integer')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('last_used_at', 'bigint', (column) => column.notNull())
    .addColumn('closed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('sessions_account_device')
    .on('sessions')
    .columns(['account_number', 'device_id', 'closed_at'])
    .execute();
  await db.schema
    .createTable('device_signing_keys')
    .addColumn('kid', 'text', (column) => column.primaryKey())
    .addColumn('public_jwk', 'text', (column) => column.notNull())
    .addColumn('private_jwk_sealed', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_signing_keys').execute();
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('devices').execute();
  await db.schema.dropTable('users').execute();
  await db.schema.dropTable('accounts').execute();
}
