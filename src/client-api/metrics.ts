import { Counter, Gauge, type Registry } from 'prom-client';
import { scrapeCache } from '../core/metrics/core-metrics.ts';
import type { OutboxStatus } from './mail/status.ts';
import type { DeliveryOutcome } from './mail/worker.ts';

/** The store is asked for the outbox's figures (and the live streams) at most this often, however often Prometheus scrapes. */
const OUTBOX_READ_EVERY_MS = 5000;

/** The client API's own metrics (docs/observability.md): the mail outbox, login throttling, TV sign-in bounds. */
export interface ClientApiMetrics {
  mailDelivery(outcome: DeliveryOutcome): void;
  /** A sign-in refused by the throttle (429 LOGIN_THROTTLED), by the limit it hit. */
  loginThrottled(limit: 'address' | 'user'): void;
  /** A wrong-code lookup of a TV sign-in refused (429 USER_CODE_THROTTLED), by the limit it hit. */
  userCodeThrottled(limit: 'address' | 'user'): void;
  /** A TV sign-in refused at a bound: its address's codes (429), every waiting code (503), an account's refusals (429). */
  deviceGrantLimited(limit: 'address' | 'overall' | 'account'): void;
  /** A stream start or report refused at the account's stream limit (409 STREAM_LIMIT_REACHED). */
  playbackRefused(): void;
}

export function createClientApiMetrics(
  registry: Registry,
  outbox: () => Promise<OutboxStatus>,
  liveStreams: () => Promise<number>,
): ClientApiMetrics {
  const deliveries = new Counter({
    name: 'sintonia_mail_deliveries_total',
    help: 'Attempts to deliver an outbox e-mail, by outcome: sent, retry (failed, will be tried again) or failed (for good).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const throttled = new Counter({
    name: 'sintonia_login_throttled_total',
    help: 'Sign-ins refused by the failed-login throttle (429 LOGIN_THROTTLED), by the limit hit: address or user.',
    labelNames: ['limit'],
    registers: [registry],
  });
  const codeThrottled = new Counter({
    name: 'sintonia_user_code_throttled_total',
    help: 'TV sign-in code lookups refused by the wrong-code throttle (429 USER_CODE_THROTTLED), by the limit hit: address or user (a person).',
    labelNames: ['limit'],
    registers: [registry],
  });
  const grantLimited = new Counter({
    name: 'sintonia_device_grant_limited_total',
    help: "TV sign-ins refused at a bound: address (429, the address's waiting or refused codes), overall (503, every waiting code) or account (429, a refusal past the account's refusals).",
    labelNames: ['limit'],
    registers: [registry],
  });
  const playbackRefused = new Counter({
    name: 'sintonia_playback_refused_total',
    help: "Stream starts and reports refused at the account's stream limit (409 STREAM_LIMIT_REACHED).",
    registers: [registry],
  });
  for (const outcome of ['sent', 'retry', 'failed']) deliveries.inc({ outcome }, 0);
  for (const limit of ['address', 'user']) throttled.inc({ limit }, 0);
  for (const limit of ['address', 'user']) codeThrottled.inc({ limit }, 0);
  for (const limit of ['address', 'overall', 'account']) grantLimited.inc({ limit }, 0);
  const status = scrapeCache(outbox, OUTBOX_READ_EVERY_MS);
  // While the store does not answer, the gauges keep their last figures (the store's own metrics say why).
  const read = () => status().catch(() => undefined);
  new Gauge({
    name: 'sintonia_mail_outbox_messages',
    help: 'E-mails in the outbox by status: pending (to be sent) or failed (given up, kept for operators).',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const figures = await read();
      if (figures === undefined) return;
      this.set({ status: 'pending' }, figures.pending);
      this.set({ status: 'failed' }, figures.failed);
    },
  });
  new Gauge({
    name: 'sintonia_mail_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest pending outbox e-mail; 0 when none is pending.',
    registers: [registry],
    async collect() {
      const figures = await read();
      if (figures === undefined) return;
      const since = figures.oldestPendingSince;
      this.set(since === null ? 0 : Math.max(0, (Date.now() - Date.parse(since)) / 1000));
    },
  });
  const streams = scrapeCache(liveStreams, OUTBOX_READ_EVERY_MS);
  new Gauge({
    name: 'sintonia_playback_streams',
    help: 'Live streams of every account now (a report within PLAYBACK_STALE_AFTER), one indexed count per scrape at most every 5 s.',
    registers: [registry],
    async collect() {
      const count = await streams().catch(() => undefined);
      if (count !== undefined) this.set(count);
    },
  });
  return {
    playbackRefused: () => playbackRefused.inc(),
    mailDelivery: (outcome) => deliveries.inc({ outcome }),
    loginThrottled: (limit) => throttled.inc({ limit }),
    userCodeThrottled: (limit) => codeThrottled.inc({ limit }),
    deviceGrantLimited: (limit) => grantLimited.inc({ limit }),
  };
}
