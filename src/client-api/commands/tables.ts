import {
  bigint,
  integer,
  nullable,
  type SchemaColumns,
  type TableTypes,
  text,
} from '../../core/db/table-columns.ts';

export type CommandType = 'stop' | 'pause' | 'resume' | 'play';
/** As stored; `expired` is never stored: an unacknowledged command past `expires_at` reads as expired. */
export type StoredCommandState = 'sent' | 'delivered' | 'acknowledged';

/** Commands to devices and the command streams held (migration 20261128110001_device-commands). Times: epoch ms. */
export const commandColumns = {
  device_commands: {
    id: text(),
    account_number: text(),
    device_id: text(),
    type: text<CommandType>(),
    content_id: nullable(bigint()),
    offset_seconds: nullable(integer()),
    /** Who sent it, as the limit per sender counts: `device:<account>/<id>`, `assistant:…`, `operator:<key id>`. */
    sender: text(),
    state: text<StoredCommandState>(),
    created_at: bigint(),
    /** COMMAND_TTL after it was sent: unacknowledged past it, it reads as expired and is not sent again. */
    expires_at: bigint(),
    delivered_at: nullable(bigint()),
    acknowledged_at: nullable(bigint()),
  },
  command_streams: {
    account_number: text(),
    device_id: text(),
    /** The process holding the stream (random per process start). */
    holder: text(),
    /** Refreshed for all of a holder's streams once per COMMAND_STREAM_KEEPALIVE; older than 3 of them: gone. */
    seen_at: bigint(),
  },
} as const satisfies SchemaColumns;

export type CommandTables = TableTypes<typeof commandColumns>;
export type CommandRow = CommandTables['device_commands'];
