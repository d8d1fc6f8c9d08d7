import { randomUUID } from 'node:crypto';
import { clientAddressGroup } from '../../core/limits/client-address.ts';
import { keyedHash } from '../../core/secrets.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { registrationErrors } from './errors.ts';
import { registrationMail } from './registration-mail.ts';
import type { RegistrationRepository } from './repository.ts';
import type { RegistrationAccepted, RegistrationRequest } from './schemas.ts';

const WINDOW_MS = 3_600_000;

export interface RegistrationService {
  request(input: {
    deviceClass: string;
    body: RegistrationRequest;
    clientAddress: string;
  }): Promise<RegistrationAccepted>;
}

export interface RegistrationDeps {
  repository: RegistrationRepository;
  /** Seals outbox messages. */
  outboxKey: Buffer;
  /** Keys the hashes of addresses in counters and request records (no address stored in clear). */
  hashKey: Buffer;
  limitPerHour: number;
  /** Registration e-mails queued per hour, all clients together (REGISTRATION_MAIL_PER_HOUR). */
  limitPerHourTotal?: number;
  /** Counts a refusal in /metrics: per client or e-mail address, or for all of them. */
  refused?: (limit: 'registration_per_address' | 'registration_total') => void;
  /** Told after the commit, so the worker delivers at once instead of at its next poll. */
  onQueued(): void;
  now?: () => number;
}

/**
 * Records the request, counts it against the per-address and per-e-mail limits and writes the e-mail
 * into the outbox, all in one transaction: either all of it is committed or none.
 */
export function createRegistrationService(deps: RegistrationDeps): RegistrationService {
  const now = deps.now ?? Date.now;
  return {
    async request({ deviceClass, body, clientAddress }) {
      const at = now();
      const windowStart = Math.floor(at / WINDOW_MS) * WINDOW_MS;
      const email = body.email.trim().toLowerCase();
      const emailHash = keyedHash(deps.hashKey, `email:${email}`);
      const requestId = randomUUID();
      await deps.repository.transaction(async (store) => {
        await store.dropOldWindows(windowStart - WINDOW_MS);
        const byClient = await store.countHit(
          `registration:client:${keyedHash(deps.hashKey, clientAddressGroup(clientAddress))}`,
          windowStart,
        );
        const byEmail = await store.countHit(`registration:email:${emailHash}`, windowStart);
        const retryAfter = {
          'retry-after': String(Math.max(1, Math.ceil((windowStart + WINDOW_MS - at) / 1000))),
        };
        // Thrown inside the transaction: the refused request is not counted.
        if (byClient > deps.limitPerHour || byEmail > deps.limitPerHour) {
          deps.refused?.('registration_per_address');
          throw registrationErrors.REGISTRATION_RATE_LIMITED(
            `At most ${deps.limitPerHour} registration requests per hour per client and per e-mail address.`,
            { headers: retryAfter },
          );
        }
        const total = deps.limitPerHourTotal;
        if (total !== undefined && (await store.countHit('registration:all', windowStart)) > total) {
          deps.refused?.('registration_total');
          throw registrationErrors.REGISTRATION_RATE_LIMITED(
            `At most ${total} registration e-mails per hour, all clients together; retry later.`,
            { headers: retryAfter },
          );
        }
        const outboxId = await enqueueMail(
          store.outbox,
          deps.outboxKey,
          'registration',
          registrationMail(body, deviceClass, requestId),
          at,
        );
        await store.recordRequest({
          id: requestId,
          device_class: deviceClass,
          email_hash: emailHash,
          outbox_id: outboxId,
          created_at: at,
        });
      });
      deps.onQueued();
      return { requestId, status: 'queued' };
    },
  };
}
