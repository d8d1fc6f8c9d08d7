import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Config } from '../../core/config.ts';
import type { Database } from '../../core/db/database.ts';
import type { RetentionRule } from '../../core/db/retention.ts';
import type { AgentTables } from '../tables.ts';
import type { ChatMessage } from './model-client.ts';

/**
 * Whose conversation: who started it (the caller: an API key, or the assistant's channel for this very
 * conversation) and the person speaking (none when anonymous), in one conversation. Another caller with
 * the same conversation id reaches other memory: none of what this one remembers.
 */
export interface HistoryOwner {
  conversationId: string;
  caller?: string;
  assistantId?: string;
}

/** The chat agent's memory of a conversation, in the store: any process answering the next turn reads it. */
export interface ChatHistory {
  /** The most recent whole turns that fit the token budget, oldest first. */
  recall(owner: HistoryOwner): Promise<ChatMessage[]>;
  /** Remembers one turn's messages (the person's, the tool calls and results, the answer), in order. */
  remember(owner: HistoryOwner, messages: ChatMessage[]): Promise<void>;
}

/** Turns kept per conversation when not configured (CHAT_HISTORY_TURNS's default). */
const MAX_TURNS = 50;

/** Rows read per recall at most: far more than any budget lets through. */
const MAX_ROWS = 400;

/** A rough token count, as budgets need: about four characters a token, plus the message's envelope. */
export const tokensOf = (message: ChatMessage): number => Math.ceil(JSON.stringify(message).length / 4) + 4;

/**
 * The history of each conversation, bounded by `budgetTokens` (CHAT_HISTORY_TOKENS): whole turns only,
 * newest first until the next would not fit, so a tool result never arrives without its call.
 */
export function createChatHistory(deps: {
  database: Database;
  key: (purpose: string) => Buffer;
  budgetTokens: number;
  /** Turns kept per conversation (CHAT_HISTORY_TURNS): older ones go as new ones come. */
  maxTurns?: number;
  now?: () => number;
}): ChatHistory {
  const db = deps.database.db.withTables<AgentTables>();
  const ownerKey = deps.key('agent-chat-history-owner');
  const now = deps.now ?? Date.now;
  const ownerHash = (owner: HistoryOwner) =>
    createHmac('sha256', ownerKey)
      .update(`${owner.caller ?? ''}\u0000${owner.assistantId ?? ''}\u0000${owner.conversationId}`)
      .digest('base64url');

  /** Deletes the owner's turns older than its newest `turns` (a turn's first message has position 0). */
  async function forgetBeyond(hash: string, turns: number): Promise<void> {
    const oldestKept = await db
      .selectFrom('agent_chat_history')
      .select('created_at')
      .where('owner_hash', '=', hash)
      .where('position', '=', 0)
      .orderBy('created_at', 'desc')
      .limit(1)
      .offset(turns - 1)
      .executeTakeFirst();
    if (!oldestKept) return;
    await db
      .deleteFrom('agent_chat_history')
      .where('owner_hash', '=', hash)
      .where('created_at', '<', oldestKept.created_at)
      .execute();
  }

  return {
    async recall(owner) {
      if (deps.budgetTokens === 0) return [];
      const rows = await db
        .selectFrom('agent_chat_history')
        .select(['turn_id', 'position', 'message', 'tokens'])
        .where('owner_hash', '=', ownerHash(owner))
        .orderBy('created_at', 'desc')
        // Two turns stored in the same millisecond still come out one after the other, never interleaved.
        .orderBy('turn_id')
        .orderBy('position', 'desc')
        .limit(MAX_ROWS)
        .execute();
      const turns: Array<{ id: string; rows: typeof rows; tokens: number }> = [];
      for (const row of rows) {
        const last = turns.at(-1);
        if (last?.id === row.turn_id) {
          last.rows.push(row);
          last.tokens += row.tokens;
        } else turns.push({ id: row.turn_id, rows: [row], tokens: row.tokens });
      }
      const kept: ChatMessage[][] = [];
      let spent = 0;
      for (const turn of turns) {
        if (spent + turn.tokens > deps.budgetTokens) break;
        spent += turn.tokens;
        kept.push(turn.rows.map((row) => JSON.parse(row.message) as ChatMessage).reverse());
      }
      return kept.reverse().flat();
    },

    async remember(owner, messages) {
      if (deps.budgetTokens === 0 || messages.length === 0) return;
      const turnId = randomUUID();
      const at = now();
      await db
        .insertInto('agent_chat_history')
        .values(
          messages.map((message, position) => ({
            id: randomUUID(),
            owner_hash: ownerHash(owner),
            turn_id: turnId,
            position,
            message: JSON.stringify(message),
            tokens: tokensOf(message),
            created_at: at,
          })),
        )
        .execute();
      await forgetBeyond(ownerHash(owner), deps.maxTurns ?? MAX_TURNS);
    },
  };
}

/** The retention job's rule for the chat agent's memory (indexed on created_at, migration 20261125120001). */
export function chatHistoryRetention(config: Pick<Config, 'CHAT_HISTORY_RETENTION'>): RetentionRule {
  return {
    name: 'agent_chat_history',
    table: 'agent_chat_history',
    key: ['id'],
    keepSeconds: config.CHAT_HISTORY_RETENTION,
    column: 'created_at',
    expired: (cutoff) => sql`${sql.ref('created_at')} < ${cutoff}`,
  };
}
