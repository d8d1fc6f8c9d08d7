import type { Transaction } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import { directLineErrors } from './errors.ts';
import type { Activity } from './schemas.ts';
import type { DirectLineTables } from './tables.ts';

export interface ConversationRow {
  id: string;
  userId: string;
  lastSeq: number;
  /** The assistant user the conversation speaks for; null when anonymous. */
  assistantId: string | null;
}

/** A reference to a row that is not there: SQLite's and PostgreSQL's codes for a foreign key violation. */
function isMissingReference(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}

export interface StoredActivity {
  seq: number;
  activity: Activity;
}

/** `abc123|0000007`: Direct Line's activity id shape, the conversation id and the sequence number. */
export const activityId = (conversationId: string, seq: number) =>
  `${conversationId}|${String(seq).padStart(7, '0')}`;

/** A file uploaded to a conversation, as stored. */
export interface StoredFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  content: Buffer;
}

/** A process's hold on pending messages: who (a channel instance) and until when. */
export interface Claim {
  by: string;
  until: number;
}

/** A pending message another process left, with whom its conversation belongs to. */
export type AbandonedMessage = StoredActivity & Pick<ConversationRow, 'userId' | 'assistantId'>;

export type DirectLineRepository = ReturnType<typeof createDirectLineRepository>;

export function createDirectLineRepository(database: Database) {
  const db = database.db.withTables<DirectLineTables>();

  async function insertNext(
    trx: Transaction<CoreTables & DirectLineTables>,
    conversationId: string,
    now: number,
    build: (id: string) => Activity,
    claim?: Claim,
    files: readonly StoredFile[] = [],
  ): Promise<StoredActivity> {
    const row = await trx
      .updateTable('directline_conversations')
      .set((eb) => ({ last_seq: eb('last_seq', '+', 1), last_activity_at: now }))
      .where('id', '=', conversationId)
      .returning('last_seq')
      .executeTakeFirst();
    if (!row) throw directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND();
    for (const file of files) {
      await trx
        .insertInto('directline_uploads')
        .values({
          id: file.id,
          conversation_id: conversationId,
          name: file.name,
          content_type: file.contentType,
          size: file.size,
          content: file.content.toString('base64'),
          created_at: now,
        })
        .execute();
    }
    const seq = Number(row.last_seq);
    const activity = build(activityId(conversationId, seq));
    await trx
      .insertInto('directline_activities')
      .values({
        conversation_id: conversationId,
        seq,
        id: activity.id,
        activity: JSON.stringify(activity),
        created_at: now,
        answer_state: claim ? 'pending' : null,
        claimed_until: claim?.until ?? null,
        claimed_by: claim?.by ?? null,
      })
      .execute();
    return { seq, activity };
  }

  return {
    /**
     * True when this call created the conversation, false when it already existed (an existing row
     * keeps its speaker). 'speaker-gone' when `assistantId` names a user removed meanwhile.
     */
    async start(
      id: string,
      userId: string,
      now: number,
      assistantId: string | null = null,
    ): Promise<boolean | 'speaker-gone'> {
      try {
        const result = await db
          .insertInto('directline_conversations')
          .values({
            id,
            user_id: userId,
            last_seq: 0,
            created_at: now,
            last_activity_at: now,
            assistant_id: assistantId,
          })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .executeTakeFirst();
        return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
      } catch (error) {
        if (assistantId !== null && isMissingReference(error)) return 'speaker-gone';
        throw error;
      }
    },

    async find(id: string): Promise<ConversationRow | undefined> {
      const row = await db
        .selectFrom('directline_conversations')
        .select(['id', 'user_id', 'last_seq', 'assistant_id'])
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          userId: row.user_id,
          lastSeq: Number(row.last_seq),
          assistantId: row.assistant_id,
        }
      );
    },

    /**
     * Numbers and stores one activity. The sequence number is taken under the conversation row's lock
     * in the same transaction, so a reader never sees seq n+1 committed before seq n. `awaitAnswer`
     * stores a user message as pending under this process's claim; `files` (an upload's) are stored in
     * the same transaction, so the activity never names a file that is not there.
     */
    async append(
      conversationId: string,
      now: number,
      build: (id: string) => Activity,
      awaitAnswer?: Claim,
      files?: readonly StoredFile[],
    ): Promise<StoredActivity> {
      return db
        .transaction()
        .execute((trx) => insertNext(trx, conversationId, now, build, awaitAnswer, files));
    },

    /** One file of one conversation: another conversation's file is not found here. */
    async findFile(conversationId: string, id: string): Promise<StoredFile | undefined> {
      const row = await db
        .selectFrom('directline_uploads')
        .select(['id', 'name', 'content_type', 'size', 'content'])
        .where('id', '=', id)
        .where('conversation_id', '=', conversationId)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          name: row.name,
          contentType: row.content_type,
          size: Number(row.size),
          content: Buffer.from(row.content, 'base64'),
        }
      );
    },

    /**
     * Stores the answer to a pending message and marks the message done, in one transaction, if this
     * process still holds its claim; undefined (nothing stored) when another process took it over.
     */
    async appendAnswer(
      conversationId: string,
      now: number,
      build: (id: string) => Activity,
      question: { seq: number; by: string },
    ): Promise<StoredActivity | undefined> {
      return db.transaction().execute(async (trx) => {
        const marked = await trx
          .updateTable('directline_activities')
          .set({ answer_state: 'done', claimed_until: null, claimed_by: null })
          .where('conversation_id', '=', conversationId)
          .where('seq', '=', question.seq)
          .where('answer_state', '=', 'pending')
          .where('claimed_by', '=', question.by)
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) !== 1) return undefined;
        return insertNext(trx, conversationId, now, build);
      });
    },

    /** Extends this process's claims on the conversation's pending messages (they wait in its queue). */
    async renewClaims(conversationId: string, claim: Claim): Promise<void> {
      await db
        .updateTable('directline_activities')
        .set({ claimed_until: claim.until })
        .where('conversation_id', '=', conversationId)
        .where('answer_state', '=', 'pending')
        .where('claimed_by', '=', claim.by)
        .execute();
    },

    /**
     * Takes over pending messages whose claim ran out (their process died): each is claimed with a
     * conditional update, so of several processes sweeping at once only one answers it. Each comes
     * with its conversation's user and speaker, as the agent must hear them.
     */
    async claimAbandoned(now: number, claim: Claim, limit: number): Promise<AbandonedMessage[]> {
      const candidates = await db
        .selectFrom('directline_activities')
        .innerJoin(
          'directline_conversations',
          'directline_conversations.id',
          'directline_activities.conversation_id',
        )
        .select([
          'directline_activities.conversation_id',
          'directline_activities.seq',
          'directline_activities.activity',
          'directline_activities.claimed_until',
          'directline_conversations.user_id',
          'directline_conversations.assistant_id',
        ])
        .where('directline_activities.answer_state', '=', 'pending')
        .where('directline_activities.claimed_until', '<', now)
        .orderBy('directline_activities.created_at')
        .limit(limit)
        .execute();
      const claimed: AbandonedMessage[] = [];
      for (const candidate of candidates) {
        const result = await db
          .updateTable('directline_activities')
          .set({ claimed_until: claim.until, claimed_by: claim.by })
          .where('conversation_id', '=', candidate.conversation_id)
          .where('seq', '=', candidate.seq)
          .where('answer_state', '=', 'pending')
          .where('claimed_until', '=', candidate.claimed_until)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 1) {
          claimed.push({
            seq: Number(candidate.seq),
            activity: JSON.parse(candidate.activity) as Activity,
            userId: candidate.user_id,
            assistantId: candidate.assistant_id,
          });
        }
      }
      return claimed;
    },

    async listAfter(conversationId: string, afterSeq: number, limit: number): Promise<StoredActivity[]> {
      const rows = await db
        .selectFrom('directline_activities')
        .select(['seq', 'activity'])
        .where('conversation_id', '=', conversationId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ seq: Number(row.seq), activity: JSON.parse(row.activity) as Activity }));
    },

    /**
     * Removes conversations idle since before `cutoff`, then every activity and uploaded file left
     * without its conversation.
     */
    async purgeIdleBefore(cutoff: number): Promise<number> {
      const result = await db
        .deleteFrom('directline_conversations')
        .where('last_activity_at', '<', cutoff)
        .executeTakeFirst();
      await db
        .deleteFrom('directline_activities')
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('directline_conversations')
                .select('directline_conversations.id')
                .whereRef('directline_conversations.id', '=', 'directline_activities.conversation_id'),
            ),
          ),
        )
        .execute();
      await db
        .deleteFrom('directline_uploads')
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('directline_conversations')
                .select('directline_conversations.id')
                .whereRef('directline_conversations.id', '=', 'directline_uploads.conversation_id'),
            ),
          ),
        )
        .execute();
      return Number(result.numDeletedRows);
    },
  };
}
