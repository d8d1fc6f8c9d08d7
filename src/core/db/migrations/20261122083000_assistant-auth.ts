import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('assistant_signing_keys')
    .addColumn('kid', 'text', (column) => column.primaryKey())
    .addColumn('alg', 'text', (column) => column.notNull())
    .addColumn('public_jwk', 'text', (column) => column.notNull())
    .addColumn('private_jwk_sealed', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('activates_at', 'bigint', (column) => column.notNull())
    .addColumn('retires_at', 'bigint')
    .execute();
  await db.schema
    .createTable('assistant_users')
    .addColumn('assistant_id', 'text', (column) => column.primaryKey())
    .addColumn('assistant_id_global', 'text', (column) => column.notNull())
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('subject_hash', 'text')
    .addColumn('phone_hash', 'text')
    .addColumn('phone_sealed', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('assistant_users_global_channel')
    .on('assistant_users')
    .columns(['assistant_id_global', 'channel', 'created_at'])
    .execute();
  await db.schema
    .createIndex('assistant_users_subject')
    .on('assistant_users')
    .column('subject_hash')
    .execute();
  await db.schema.createIndex('assistant_users_phone').on('assistant_users').column('phone_hash').execute();
  await db.schema
    .createTable('assistant_callback_nonces')
    .addColumn('nonce_hash', 'text', (column) => column.primaryKey())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('assistant_callback_nonces').execute();
  await db.schema.dropTable('assistant_users').execute();
  await db.schema.dropTable('assistant_signing_keys').execute();
}
