import type { Core } from '../../core/core.ts';
import { directLineErrors } from './errors.ts';
import type { Activity } from './schemas.ts';
import type { DirectLineTables } from './tables.ts';

export interface ConversationRow {
  id: string;
  userId: string;
  lastSeq: number;
}

export interface StoredActivity {
  seq: number;
  activity: Activity;
}

/** `abc123|0000007`: Direct Line's activity id shape, the conversation id and the sequence number. */
export const activityId = (conversationId: string, seq: number) =>
  `${conversationId}|${String(seq).padStart(7, '0')}`;

export type DirectLineRepository = ReturnType<typeof directLineRepository>;

export function directLineRepository(core: Core) {
  const db = core.database.db.withTables<DirectLineTables>();

  return {
    /** True when this call created the conversation, false when it already existed. */
    async start(id: string, userId: string, now: number): Promise<boolean> {
      const result = await db
        .insertInto('directline_conversations')
        .values({ id, user_id: userId, last_seq: 0, created_at: now, last_activity_at: now })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async find(id: string): Promise<ConversationRow | undefined> {
      const row = await db
        .selectFrom('directline_conversations')
        .select(['id', 'user_id', 'last_seq'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row && { id: row.id, userId: row.user_id, lastSeq: Number(row.last_seq) };
    },

    /**
     * Numbers and stores one activity. The sequence number is taken under the conversation row's lock
     * in the same transaction, so a reader never sees seq n+1 committed before seq n.
     */
    async append(
      conversationId: string,
      now: number,
      build: (id: string) => Activity,
    ): Promise<StoredActivity> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('directline_conversations')
          .set((eb) => ({ last_seq: eb('last_seq', '+', 1), last_activity_at: now }))
          .where('id', '=', conversationId)
          .returning('last_seq')
          .executeTakeFirst();
        if (!row) throw directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND();
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
          })
          .execute();
        return { seq, activity };
      });
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

    /** Removes conversations idle since before `cutoff`, then every activity left without its conversation. */
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
      return Number(result.numDeletedRows);
    },
  };
}
