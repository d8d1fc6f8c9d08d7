import type { Database } from '../../core/db/database.ts';
import { type Claim, insertNextActivity, type StoredActivity } from './next-activity.ts';
import type { ConversationRow } from './repository.ts';
import type { Activity } from './schemas.ts';
import type { DirectLineTables } from './tables.ts';

/** A pending message another process left, with whom its conversation belongs to. */
type AbandonedMessage = StoredActivity & Pick<ConversationRow, 'userId' | 'assistantId'>;

export type AnswerClaimRepository = ReturnType<typeof createAnswerClaimRepository>;

/** The messages waiting for the agent's answer: which process holds each, and the answer that settles it. */
export function createAnswerClaimRepository(database: Database) {
  const db = database.db.withTables<DirectLineTables>();
  return {
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
        return insertNextActivity(trx, conversationId, now, build);
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
  };
}
