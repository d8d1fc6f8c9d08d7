import type { OutboxRepository } from './outbox-repository.ts';

export interface OutboxStatus {
  pending: number;
  sent: number;
  failed: number;
  /** When the oldest pending message was written (ISO 8601), if any. */
  oldestPendingSince: string | null;
}

/** Counts of the outbox by status, for operators (`sintonia mail outbox`). No addresses. */
export async function outboxStatus(outbox: Pick<OutboxRepository, 'countByStatus'>): Promise<OutboxStatus> {
  const counts = await outbox.countByStatus();
  const count = (status: string) => counts.find((row) => row.status === status)?.count ?? 0;
  const oldest = counts.find((row) => row.status === 'pending')?.oldest ?? null;
  return {
    pending: count('pending'),
    sent: count('sent'),
    failed: count('failed'),
    oldestPendingSince: oldest === null ? null : new Date(oldest).toISOString(),
  };
}
