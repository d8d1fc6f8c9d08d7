import type { OutboxRepository } from './outbox-repository.ts';

export interface OutboxStatus {
  pending: number;
  /** Counted only when asked (`sintonia mail outbox`): the sent messages are most of the table. */
  sent?: number;
  failed: number;
  /** When the oldest pending message was written (ISO 8601), if any. */
  oldestPendingSince: string | null;
}

/** Counts of the outbox by status, for operators (`sintonia mail outbox`, with `sent`) and /metrics. No addresses. */
export async function outboxStatus(
  outbox: Pick<OutboxRepository, 'countByStatus'>,
  options: { sent?: boolean } = {},
): Promise<OutboxStatus> {
  const counts = await outbox.countByStatus(
    options.sent ? ['pending', 'failed', 'sent'] : ['pending', 'failed'],
  );
  const count = (status: string) => counts.find((row) => row.status === status)?.count ?? 0;
  const oldest = counts.find((row) => row.status === 'pending')?.oldest ?? null;
  return {
    pending: count('pending'),
    ...(options.sent ? { sent: count('sent') } : {}),
    failed: count('failed'),
    oldestPendingSince: oldest === null ? null : new Date(oldest).toISOString(),
  };
}
