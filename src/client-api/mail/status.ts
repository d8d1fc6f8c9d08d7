import type { Kysely } from 'kysely';
import type { CoreTables } from '../../core/db/tables.ts';
import type { MailTables } from './outbox.ts';

export interface OutboxStatus {
  pending: number;
  sent: number;
  failed: number;
  /** When the oldest pending message was written (ISO 8601), if any. */
  oldestPendingSince: string | null;
}

/** Counts of the outbox by status, for operators (`sintonia mail outbox`). No addresses. */
export async function outboxStatus(db: Kysely<CoreTables & MailTables>): Promise<OutboxStatus> {
  const rows = await db
    .selectFrom('mail_outbox')
    .select((eb) => [
      'status',
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<number>('created_at').as('oldest'),
    ])
    .groupBy('status')
    .execute();
  const count = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
  const oldest = rows.find((row) => row.status === 'pending')?.oldest;
  return {
    pending: count('pending'),
    sent: count('sent'),
    failed: count('failed'),
    oldestPendingSince:
      oldest === undefined || oldest === null ? null : new Date(Number(oldest)).toISOString(),
  };
}
