import type { Kysely } from 'kysely';
import type { CoreTables } from '../../core/db/tables.ts';
import type { ClientContentTables } from '../tables.ts';

export type MailTables = Pick<ClientContentTables, 'mail_outbox'>;

export type OutboxRow = MailTables['mail_outbox'];

/** How a failed attempt leaves a message: due again later, or failed for good. */
export interface FailedAttempt {
  attempts: number;
  status: 'pending' | 'failed';
  nextAttemptAt: number;
  lastError: string;
}

export interface OutboxCount {
  status: string;
  count: number;
  /** When the status's oldest message was written. */
  oldest: number | null;
}

/** The outbox table; `db` may be a transaction, so a message is written with what caused it. */
export function createOutboxRepository(db: Kysely<CoreTables & MailTables>) {
  return {
    async insert(row: OutboxRow): Promise<void> {
      await db.insertInto('mail_outbox').values(row).execute();
    },

    /** Pending messages due at `at` that no live claim holds, the longest due first. */
    due(at: number, limit: number): Promise<OutboxRow[]> {
      return db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', at)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute();
    },

    /**
     * Claims a pending message until `until` with one conditional update: of several workers (in any
     * process) only one sees true, until the claim expires at `until`.
     */
    async claim(id: string, at: number, until: number): Promise<boolean> {
      const result = await db
        .updateTable('mail_outbox')
        .set({ locked_until: until })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', at)]))
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },

    /** Releases the claim after a failed attempt; the message is kept for a retry or for operators. */
    async recordFailure(id: string, failure: FailedAttempt): Promise<void> {
      await db
        .updateTable('mail_outbox')
        .set({
          attempts: failure.attempts,
          status: failure.status,
          next_attempt_at: failure.nextAttemptAt,
          locked_until: null,
          last_error: failure.lastError,
        })
        .where('id', '=', id)
        .execute();
    },

    /** Marks the message delivered and forgets it: its address is no longer needed. */
    async markSent(id: string, attempts: number, sentAt: number): Promise<void> {
      await db
        .updateTable('mail_outbox')
        .set({
          attempts,
          status: 'sent',
          sent_at: sentAt,
          locked_until: null,
          last_error: null,
          sealed_message: '',
        })
        .where('id', '=', id)
        .execute();
    },

    /**
     * Messages of the statuses asked, with the oldest of each, through the (status, next_attempt_at) index:
     * the metrics ask for pending and failed only, which stay few, where sent grows with the traffic.
     */
    async countByStatus(statuses: ReadonlyArray<'pending' | 'sent' | 'failed'>): Promise<OutboxCount[]> {
      const rows = await db
        .selectFrom('mail_outbox')
        .select((eb) => [
          'status',
          eb.fn.countAll<number>().as('count'),
          eb.fn.min<number>('created_at').as('oldest'),
        ])
        .where('status', 'in', [...statuses])
        .groupBy('status')
        .execute();
      return rows.map((row) => ({
        status: row.status,
        count: Number(row.count),
        oldest: row.oldest === null || row.oldest === undefined ? null : Number(row.oldest),
      }));
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
