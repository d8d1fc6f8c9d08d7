import type { Kysely } from 'kysely';

/**
 * Commands sent to a device (stop, pause, resume, play) and the command streams each process holds
 * (issue 43 item 4). A stream row is the store's "is it connected" for every process: written when a
 * device's stream opens, deleted when it closes, its `seen_at` refreshed for all of a process's streams by
 * one update per keep-alive interval.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as it is typed now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_commands')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_number', 'text', (column) => column.notNull())
    .addColumn('device_id', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('content_id', 'bigint')
    .addColumn('offset_seconds', 'integer')
    .addColumn('sender', 'text', (column) => column.notNull())
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('acknowledged_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('device_commands_device')
    .on('device_commands')
    .columns(['account_number', 'device_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('device_commands_sender')
    .on('device_commands')
    .columns(['sender', 'created_at'])
    .execute();
  await db.schema.createIndex('device_commands_created').on('device_commands').column('created_at').execute();

  await db.schema
    .createTable('command_streams')
    .addColumn('account_number', 'text', (column) => column.notNull())
    .addColumn('device_id', 'text', (column) => column.notNull())
    .addColumn('holder', 'text', (column) => column.notNull())
    .addColumn('seen_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('command_streams_pk', ['account_number', 'device_id', 'holder'])
    .execute();
  await db.schema.createIndex('command_streams_holder').on('command_streams').column('holder').execute();
  await db.schema.createIndex('command_streams_seen').on('command_streams').column('seen_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('command_streams').execute();
  await db.schema.dropTable('device_commands').execute();
}
