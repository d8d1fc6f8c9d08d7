import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { enqueueMail } from '../../src/client-api/mail/outbox.ts';
import type {
  FailedAttempt,
  OutboxRepository,
  OutboxRow,
} from '../../src/client-api/mail/outbox-repository.ts';
import { outboxStatus } from '../../src/client-api/mail/status.ts';
import { createMailWorker } from '../../src/client-api/mail/worker.ts';

const key = randomBytes(32);
const config = { MAIL_POLL_INTERVAL_MS: 60_000, MAIL_RETRY_BASE_MS: 1000, MAIL_MAX_ATTEMPTS: 2 };

/** An outbox in memory that records what the worker asked of it; `claimable` decides the claims. */
function memoryOutbox(claimable: (id: string) => boolean) {
  const rows: OutboxRow[] = [];
  const claims: Array<{ id: string; at: number; until: number }> = [];
  const failures: Array<{ id: string } & FailedAttempt> = [];
  const sent: string[] = [];
  const outbox: OutboxRepository = {
    insert: async (row) => {
      rows.push(row);
    },
    due: async (at, limit) =>
      rows.filter((row) => row.status === 'pending' && row.next_attempt_at <= at).slice(0, limit),
    claim: async (id, at, until) => {
      claims.push({ id, at, until });
      return claimable(id);
    },
    recordFailure: async (id, failure) => {
      failures.push({ id, ...failure });
      const row = rows.find((candidate) => candidate.id === id);
      if (row)
        Object.assign(row, {
          attempts: failure.attempts,
          status: failure.status,
          next_attempt_at: failure.nextAttemptAt,
        });
    },
    markSent: async (id) => {
      sent.push(id);
    },
    countByStatus: async () => [],
  };
  return { outbox, claims, failures, sent };
}

describe('mail worker over its outbox repository', () => {
  const message = { to: 'a@example.test', subject: 's', text: 't' };

  it('delivers only what it claimed, each claim for a minute', async () => {
    const memory = memoryOutbox((id) => id !== taken);
    const mine = await enqueueMail(memory.outbox, key, 'test', message, 1000);
    const taken = await enqueueMail(memory.outbox, key, 'test', message, 1000);
    const delivered: string[] = [];
    const worker = createMailWorker({
      outbox: memory.outbox,
      key,
      transport: { deliver: async (id) => void delivered.push(id), close: () => {} },
      logger: pino({ level: 'silent' }),
      config,
      now: () => 5000,
    });
    assert.equal(await worker.runOnce(), 1);
    assert.deepEqual(delivered, [mine]);
    assert.deepEqual(memory.sent, [mine]);
    assert.deepEqual(
      memory.claims.map((claim) => [claim.id, claim.until - claim.at]),
      [
        [mine, 60_000],
        [taken, 60_000],
      ],
    );
    await worker.stop();
  });

  it('records a failed delivery with its backoff, and fails it for good at MAIL_MAX_ATTEMPTS', async () => {
    const memory = memoryOutbox(() => true);
    await enqueueMail(memory.outbox, key, 'test', message, 1000);
    const worker = createMailWorker({
      outbox: memory.outbox,
      key,
      transport: {
        deliver: async () => {
          throw Object.assign(new Error('550 a@example.test refused'), { responseCode: 550 });
        },
        close: () => {},
      },
      logger: pino({ level: 'silent' }),
      config,
      now: () => clock,
    });
    let clock = 5000;
    assert.equal(await worker.runOnce(), 0);
    clock = 6000;
    assert.equal(await worker.runOnce(), 0);
    // The error's codes only: the SMTP reply quoted the address.
    assert.deepEqual(
      memory.failures.map(({ id: _id, ...failure }) => failure),
      [
        { attempts: 1, status: 'pending', nextAttemptAt: 6000, lastError: 'Error 550' },
        { attempts: 2, status: 'failed', nextAttemptAt: 8000, lastError: 'Error 550' },
      ],
    );
    assert.equal(await worker.runOnce(), 0);
    assert.equal(memory.failures.length, 2, 'a failed message is not tried again');
    await worker.stop();
  });

  it('logs a pass the store could not answer as a warning, any other failed pass as an error', async () => {
    const memory = memoryOutbox(() => true);
    let failure: Error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    memory.outbox.due = async () => {
      throw failure;
    };
    const lines: Array<{ level: number; msg: string }> = [];
    const worker = createMailWorker({
      outbox: memory.outbox,
      key,
      transport: { deliver: async () => {}, close: () => {} },
      logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
      config,
      now: () => 5000,
    });
    assert.equal(await worker.runOnce(), 0);
    failure = new TypeError('a defect');
    assert.equal(await worker.runOnce(), 0);
    assert.deepEqual(
      lines.map(({ level, msg }) => [level, msg]),
      [
        [40, 'mail worker pass failed: the store is unavailable'],
        [50, 'mail worker pass failed'],
      ],
    );
    await worker.stop();
  });
});

describe('outbox status', () => {
  it('counts by status and dates the oldest pending message, with zeros for absent statuses', async () => {
    const asked: string[][] = [];
    const outbox = {
      countByStatus: async (statuses: readonly string[]) => {
        asked.push([...statuses]);
        return [
          { status: 'pending', count: 2, oldest: Date.UTC(2026, 0, 1) },
          { status: 'sent', count: 5, oldest: 0 },
        ].filter((row) => statuses.includes(row.status));
      },
    };
    assert.deepEqual(await outboxStatus(outbox, { sent: true }), {
      pending: 2,
      sent: 5,
      failed: 0,
      oldestPendingSince: '2026-01-01T00:00:00.000Z',
    });
    // The metrics' reading: pending and failed only (sent grows with the traffic).
    assert.deepEqual(await outboxStatus(outbox), {
      pending: 2,
      failed: 0,
      oldestPendingSince: '2026-01-01T00:00:00.000Z',
    });
    assert.deepEqual(asked, [
      ['pending', 'failed', 'sent'],
      ['pending', 'failed'],
    ]);
    assert.equal((await outboxStatus({ countByStatus: async () => [] })).oldestPendingSince, null);
  });
});
