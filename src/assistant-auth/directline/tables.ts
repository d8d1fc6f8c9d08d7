import { bigint, nullable, type SchemaColumns, type TableTypes, text } from '../../core/db/table-columns.ts';

/**
 * Tables of the embedded Direct Line channel (migrations 20261122084000_directline,
 * 20261122084001_directline-answers, 20261123200000_directline-uploads and
 * 20261123200004_directline-speaker, 20261128020000_directline-activity-limits). Times are epoch milliseconds.
 */
export const directLineColumns = {
  directline_conversations: {
    id: text(),
    /** The Direct Line user (`dl_…`) the conversation's tokens are bound to. */
    user_id: text(),
    /** Sequence number of the newest activity: the conversation's watermark. */
    last_seq: bigint(),
    created_at: bigint(),
    last_activity_at: bigint(),
    /**
     * The assistant user the conversation speaks for, set when /token or /token/wss bound it to a
     * channel identity and never through Direct Line; null for anonymous conversations and once the
     * user is removed (foreign key, on delete set null).
     */
    assistant_id: nullable(text()),
    /** Bytes of the conversation's activities as stored (migration 20261128020000_directline-activity-limits). */
    activity_bytes: bigint(),
    /** Start of the minute whose client activities the two counts below hold (epoch milliseconds). */
    minute_start: bigint(),
    minute_activities: bigint(),
    minute_bytes: bigint(),
  },
  directline_activities: {
    conversation_id: text(),
    seq: bigint(),
    /** `<conversationId>|<seq, 7 digits>`, as Direct Line numbers activities. */
    id: text(),
    /** The whole activity as JSON. */
    activity: text(),
    created_at: bigint(),
    /** User messages: 'pending' until the agent's answer (or error) is stored, then 'done'; else null. */
    answer_state: nullable(text()),
    /** While pending: until when the process calling the agent holds it. */
    claimed_until: nullable(bigint()),
    /** While pending: the channel instance (process) that holds it. */
    claimed_by: nullable(text()),
  },
  directline_uploads: {
    /** Random, unguessable; part of the file's contentUrl. */
    id: text(),
    conversation_id: text(),
    /** The file name the client gave. */
    name: text(),
    content_type: text(),
    /** Bytes of the file (before base64). */
    size: bigint(),
    /** The file, base64. */
    content: text(),
    created_at: bigint(),
  },
} as const satisfies SchemaColumns;

export type DirectLineTables = TableTypes<typeof directLineColumns>;
