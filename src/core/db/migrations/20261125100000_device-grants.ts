import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_grants')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('device_code_hash', 'text', (column) => column.notNull().unique())
    .addColumn('user_code_hash', 'text', (column) => column.notNull().unique())
    .addColumn('client_id', 'text', (column) => column.notNull())
    .addColumn('device_id', 'text', (column) => column.notNull())
    .addColumn('device_name', 'text')
    .addColumn('address_hash', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('poll_interval', 'integer', (column) => column.notNull())
    .addColumn('last_polled_at', 'bigint')
    .addColumn('account_number', 'text')
    .addColumn('platform_user_id', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('device_grants_address')
    .on('device_grants')
    .columns(['address_hash', 'expires_at'])
    .execute();
  await db.schema.createIndex('device_grants_expiry').on('device_grants').column('expires_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_grants').execute();
}
