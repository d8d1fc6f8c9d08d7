import type { Transaction } from 'kysely';
import type { CoreTables } from '../../core/db/tables.ts';
import { type ActivityBudget, MINUTE_MS } from './activity-limits.ts';
import { directLineErrors } from './errors.ts';
import type { Activity } from './schemas.ts';
import type { DirectLineTables } from './tables.ts';
import { measureUploads, totalsOf, type UploadAdmission } from './upload-usage.ts';

export interface StoredActivity {
  seq: number;
  activity: Activity;
}

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

/** What goes with an activity as it is stored. */
export interface AppendOptions {
  /** Stores a user message pending an answer under this process's claim. */
  claim?: Claim;
  /** An upload's files, weighed by `admission` first. */
  files?: readonly StoredFile[];
  admission?: UploadAdmission;
  /** A client's activity: weighed against its conversation's limits (the assistant's answers are not). */
  budget?: ActivityBudget;
}

/** `abc123|0000007`: Direct Line's activity id shape, the conversation id and the sequence number. */
const activityId = (conversationId: string, seq: number) =>
  `${conversationId}|${String(seq).padStart(7, '0')}`;

/**
 * Numbers and stores one activity inside the caller's transaction: the sequence number is taken under
 * the conversation row's lock, so a reader never sees seq n+1 committed before seq n. With a `claim` the
 * activity is stored pending an answer; its `files` go in the same transaction, once `admission` has
 * weighed them against what the store holds (under that lock: two uploads to one conversation queue).
 * A `budget` is checked on the counts the same update returns, so a refused activity leaves nothing.
 */
export async function insertNextActivity(
  trx: Transaction<CoreTables & DirectLineTables>,
  conversationId: string,
  now: number,
  build: (id: string) => Activity,
  { claim, files = [], admission, budget }: AppendOptions = {},
): Promise<StoredActivity> {
  // Every activity id of a conversation has the same length: its size is known before its number.
  const bytes = Buffer.byteLength(JSON.stringify(build(activityId(conversationId, 0))));
  const row = await trx
    .updateTable('directline_conversations')
    .set((eb) => {
      const newMinute = eb('minute_start', '<=', now - MINUTE_MS);
      // Bound values, not literals: one statement text whatever the time and size.
      const counted = {
        minute_start: eb.case().when(newMinute).then(eb.val(now)).else(eb.ref('minute_start')).end(),
        minute_activities: eb
          .case()
          .when(newMinute)
          .then(eb.val(1))
          .else(eb('minute_activities', '+', 1))
          .end(),
        minute_bytes: eb
          .case()
          .when(newMinute)
          .then(eb.val(bytes))
          .else(eb('minute_bytes', '+', bytes))
          .end(),
      };
      return {
        last_seq: eb('last_seq', '+', 1),
        last_activity_at: now,
        activity_bytes: eb('activity_bytes', '+', bytes),
        // Only a client's activities count against its minute; the assistant's answers do not.
        ...(budget ? counted : {}),
      };
    })
    .where('id', '=', conversationId)
    .returning(['last_seq', 'activity_bytes', 'minute_start', 'minute_activities', 'minute_bytes'])
    .executeTakeFirst();
  if (!row) throw directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND();
  budget?.check(
    {
      activities: Number(row.last_seq),
      bytes: Number(row.activity_bytes),
      minuteStart: Number(row.minute_start),
      minuteActivities: Number(row.minute_activities),
      minuteBytes: Number(row.minute_bytes),
    },
    now,
  );
  if (admission && files.length > 0) {
    const usage = await measureUploads(trx, conversationId, admission.windowStart(now));
    admission.admit(usage, totalsOf(files));
  }
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
