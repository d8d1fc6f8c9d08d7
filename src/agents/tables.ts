import {
  bigint,
  integer,
  nullable,
  type SchemaColumns,
  type TableTypes,
  text,
} from '../core/db/table-columns.ts';

/**
 * Tables of the agents server (migrations 20261123200003_agent-confirmations, 20261125120000_agent-chat-history).
 * Times are epoch milliseconds.
 */
export const agentColumns = {
  /** Account changes a person was asked to confirm: single use, short-lived. */
  agent_confirmations: {
    id: text(),
    /** Keyed hash of the speaker's assistantId and the conversation: only they can confirm it. */
    owner_hash: text(),
    tool: text(),
    /** The tool's arguments as JSON, sealed with AES-256-GCM (associated data: the id). */
    arguments_sealed: text(),
    /** SHA-256 of the tool and its canonical arguments: what the confirmation is bound to. */
    arguments_hash: text(),
    created_at: bigint(),
    expires_at: bigint(),
    /** When it was confirmed or cancelled; a settled request never runs again. */
    settled_at: nullable(bigint()),
  },
  /** The chat agent's memory (migration 20261125120000_agent-chat-history): each turn's messages. */
  agent_chat_history: {
    id: text(),
    /** Keyed hash of the conversation and its speaker: another person's conversation is never read. */
    owner_hash: text(),
    /** The turn a message belongs to: a turn is remembered whole or not at all. */
    turn_id: text(),
    /** The message's place in its turn. */
    position: integer(),
    /** The chat-completions message as JSON (user, assistant with its tool calls, tool result). */
    message: text(),
    /** Its size as the history budget counts it (CHAT_HISTORY_TOKENS). */
    tokens: integer(),
    created_at: bigint(),
  },
} as const satisfies SchemaColumns;

export type AgentTables = TableTypes<typeof agentColumns>;
