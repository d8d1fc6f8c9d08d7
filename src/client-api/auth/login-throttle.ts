import type { Config } from '../../core/config.ts';
import { clientAddressGroup } from '../../core/limits/client-address.ts';
import { keyedHash } from '../../core/secrets.ts';
import { authenticationErrors } from './errors.ts';
import type { LoginThrottleRepository } from './login-throttle-repository.ts';

export const LOGIN_THROTTLE_KEY_PURPOSE = 'client-api:login-throttle';

type Settings = Pick<
  Config,
  'LOGIN_MAX_FAILURES' | 'LOGIN_MAX_FAILURES_PER_ADDRESS' | 'LOGIN_FAILURE_WINDOW'
>;

/** One counted sign-in attempt: `succeeded()` when its password was right. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  /**
   * This attempt was not a wrong one: it alone is taken back from both counts, and the wrong ones stand
   * until their window ends (a guessed secret whose count must not be reset by a right answer).
   */
  notWrong(): Promise<void>;
}

export interface LoginThrottle {
  /**
   * Counts an attempt for the client address, then for the user name, before the password is checked;
   * over either limit it is refused with 429 and Retry-After, right password or not, so a throttled
   * attempt tells nothing about the password.
   */
  admit(username: string, clientAddress: string, now?: number): Promise<LoginAttempt>;
}

/** Ended windows are deleted at most this often per process, on the way of a counted attempt. */
const PRUNE_EVERY_MS = 60_000;

export function createLoginThrottle(
  config: Settings,
  repository: LoginThrottleRepository,
  key: Buffer,
  onThrottled: (limit: 'address' | 'user') => void = () => {},
): LoginThrottle {
  return createAttemptThrottle(
    {
      perName: config.LOGIN_MAX_FAILURES,
      perAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: config.LOGIN_FAILURE_WINDOW,
    },
    (retryAfter) =>
      authenticationErrors.LOGIN_THROTTLED(`Too many failed sign-ins; retry in ${retryAfter} seconds.`, {
        headers: { 'retry-after': String(retryAfter) },
      }),
    repository,
    key,
    onThrottled,
  );
}

/** Failures allowed per name and per client address within a window, from its first failure. */
export interface AttemptLimits {
  perName: number;
  perAddress: number;
  windowSeconds: number;
}

/**
 * The sign-in throttle's mechanism for any guessed secret: counted in the store per name and per address
 * (keyed hashes under `key`, so another key keeps its own buckets), refused with `refuse(retryAfter)`.
 */
export function createAttemptThrottle(
  limits: AttemptLimits,
  refuse: (retryAfterSeconds: number) => Error,
  repository: LoginThrottleRepository,
  key: Buffer,
  onThrottled: (limit: 'address' | 'user') => void = () => {},
): LoginThrottle {
  const windowMs = limits.windowSeconds * 1000;
  let prunedAt = 0;

  async function countOrRefuse(
    bucket: string,
    limit: number,
    now: number,
    which: 'address' | 'user',
  ): Promise<void> {
    const { failures, windowStart } = await repository.count(bucket, now, windowMs);
    if (failures <= limit) return;
    onThrottled(which);
    throw refuse(Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)));
  }

  return {
    async admit(username, clientAddress, now = Date.now()) {
      if (now - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = now;
        await repository.dropEnded(now - windowMs);
      }
      const address = `address:${keyedHash(key, clientAddressGroup(clientAddress))}`;
      const user = `user:${keyedHash(key, username.trim().toLowerCase())}`;
      await countOrRefuse(address, limits.perAddress, now, 'address');
      await countOrRefuse(user, limits.perName, now, 'user');
      return {
        async succeeded() {
          await repository.clear(user);
          await repository.uncount(address);
        },
        async notWrong() {
          await repository.uncount(user);
          await repository.uncount(address);
        },
      };
    },
  };
}
