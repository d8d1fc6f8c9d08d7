import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import { isStoreUnavailable } from '../../core/db/unavailable.ts';
import { openMessage } from './outbox.ts';
import type { OutboxRepository, OutboxRow } from './outbox-repository.ts';
import type { MailTransport } from './transport.ts';

/** Longer than any one delivery may take (nodemailer's timeouts add up to ~40 s). */
const CLAIM_MS = 60_000;
const MAX_BACKOFF_MS = 3_600_000;
const BATCH = 20;

export interface MailWorker {
  start(): void;
  /** Looks for due messages now (after an enqueue) instead of at the next poll. */
  kick(): void;
  /** One pass over the due messages; answers how many were delivered. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface MailWorkerOptions {
  outbox: OutboxRepository;
  key: Buffer;
  transport: MailTransport;
  logger: Logger;
  config: Pick<Config, 'MAIL_POLL_INTERVAL_MS' | 'MAIL_RETRY_BASE_MS' | 'MAIL_MAX_ATTEMPTS'>;
  now?: () => number;
  /** Told how each delivery attempt ended (for /metrics). */
  onDelivery?: (outcome: DeliveryOutcome) => void;
}

/** How one delivery attempt ended: sent, failed and due again later, or failed for good. */
export type DeliveryOutcome = 'sent' | 'retry' | 'failed';

/** Delay before attempt n+1 after n failed attempts: base · 2^(n-1), capped at an hour. */
export function retryDelay(baseMs: number, failedAttempts: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, failedAttempts - 1), MAX_BACKOFF_MS);
}

/**
 * Delivers the outbox. Each message is claimed with a conditional update, so several processes on
 * one database never send it at the same time; a claim expires, so a crash leaves it due again.
 * Delivery is at least once: a crash after the send and before the mark sends it again, with the
 * same Message-ID.
 */
export function createMailWorker(options: MailWorkerOptions): MailWorker {
  const { outbox, key, transport, logger, config } = options;
  const now = options.now ?? Date.now;
  const onDelivery = options.onDelivery ?? (() => {});
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = true;
  // Set by stop(): a pass in progress finishes its current message and takes no further one.
  let closed = false;

  async function attempt(row: OutboxRow): Promise<boolean> {
    const attempts = row.attempts + 1;
    try {
      await transport.deliver(row.id, openMessage(key, row));
    } catch (error) {
      const failed = attempts >= config.MAIL_MAX_ATTEMPTS;
      const detail = describeFailure(error);
      await outbox.recordFailure(row.id, {
        attempts,
        status: failed ? 'failed' : 'pending',
        nextAttemptAt: now() + retryDelay(config.MAIL_RETRY_BASE_MS, attempts),
        lastError: detail,
      });
      onDelivery(failed ? 'failed' : 'retry');
      const log = { outboxId: row.id, kind: row.kind, attempts, error: detail };
      if (failed) logger.error(log, 'e-mail delivery failed for good; it stays in the outbox');
      else logger.warn(log, 'e-mail delivery failed; will retry');
      return false;
    }
    await outbox.markSent(row.id, attempts, now());
    onDelivery('sent');
    logger.info({ outboxId: row.id, kind: row.kind, attempts }, 'e-mail delivered');
    return true;
  }

  async function pass(): Promise<number> {
    const at = now();
    const due = await outbox.due(at, BATCH);
    let delivered = 0;
    for (const row of due) {
      if (closed) break;
      if (!(await outbox.claim(row.id, at, at + CLAIM_MS))) continue;
      if (await attempt(row)) delivered += 1;
    }
    return delivered;
  }

  function runOnce(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = pass()
      .catch((error: unknown) => {
        // The database unreachable a moment (a restart, a failover) is an outage /readyz reports, not a defect:
        // the next pass tries again.
        if (isStoreUnavailable(error))
          logger.warn({ err: error }, 'mail worker pass failed: the store is unavailable');
        else logger.error({ err: error }, 'mail worker pass failed');
        return 0;
      })
      .finally(() => {
        running = undefined;
        if (again && !stopped) {
          again = false;
          void runOnce();
        }
      });
    return running;
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void runOnce().finally(schedule);
    }, config.MAIL_POLL_INTERVAL_MS);
    timer.unref();
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      void runOnce();
      schedule();
    },
    kick() {
      if (!stopped) void runOnce();
    },
    runOnce,
    async stop() {
      stopped = true;
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (running) await running;
      transport.close();
    },
  };
}

/** The error's codes only: SMTP replies may quote the recipient's address. */
function describeFailure(error: unknown): string {
  const details = error as { code?: unknown; responseCode?: unknown; name?: unknown };
  const parts = [details.name, details.code, details.responseCode].filter(
    (part) => typeof part === 'string' || typeof part === 'number',
  );
  return parts.length > 0 ? parts.join(' ') : 'unknown error';
}
