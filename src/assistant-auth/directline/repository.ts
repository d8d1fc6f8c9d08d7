import type { Transaction } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import type { ActivityBudget } from './activity-limits.ts';
import { type Claim, insertNextActivity, type StoredActivity, type StoredFile } from './next-activity.ts';
import type { Activity } from './schemas.ts';
import type { DirectLineTables } from './tables.ts';
import { measureUploads, type UploadAdmission, type UploadUsage } from './upload-usage.ts';

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

export type DirectLineRepository = ReturnType<typeof createDirectLineRepository>;

/** Deletes every activity and uploaded file whose conversation is not there. */
async function removeOrphans(trx: Transaction<CoreTables & DirectLineTables>): Promise<void> {
  for (const table of ['directline_activities', 'directline_uploads'] as const) {
    await trx
      .deleteFrom(table)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('directline_conversations')
              .select('directline_conversations.id')
              .whereRef('directline_conversations.id', '=', `${table}.conversation_id`),
          ),
        ),
      )
      .execute();
  }
}

/** The embedded channel's conversations, their numbered activities and their uploaded files. */
export function createDirectLineRepository(database: Database) {
  const db = database.db.withTables<DirectLineTables>();

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
            activity_bytes: 0,
            minute_start: 0,
            minute_activities: 0,
            minute_bytes: 0,
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
     * Numbers and stores one activity in a transaction of its own. `awaitAnswer` stores a user message
     * as pending under this process's claim; `files` (an upload's) go in the same transaction, so the
     * activity never names a file that is not there, once `admission` let them in.
     */
    async append(
      conversationId: string,
      now: number,
      build: (id: string) => Activity,
      awaitAnswer?: Claim,
      files?: readonly StoredFile[],
      admission?: UploadAdmission,
      budget?: ActivityBudget,
    ): Promise<StoredActivity> {
      return db.transaction().execute((trx) =>
        insertNextActivity(trx, conversationId, now, build, {
          claim: awaitAnswer,
          files,
          admission,
          budget,
        }),
      );
    },

    /** What the store holds for an upload to the conversation, read before its body is. */
    uploadUsage(conversationId: string, since: number): Promise<UploadUsage> {
      return measureUploads(db, conversationId, since);
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
     * Removes conversations idle since before `cutoff` and, in the same transaction, every activity and
     * uploaded file left without its conversation: a removed conversation never leaves its files behind.
     */
    async purgeIdleBefore(cutoff: number): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .deleteFrom('directline_conversations')
          .where('last_activity_at', '<', cutoff)
          .executeTakeFirst();
        await removeOrphans(trx);
        return Number(result.numDeletedRows);
      });
    },

    /** Removes the activities and files whose conversation is gone, however it went. */
    async purgeOrphans(): Promise<void> {
      await db.transaction().execute(removeOrphans);
    },
  };
}
