import type { Config } from '../../core/config.ts';
import { deviceGrantErrors as e } from './errors.ts';
import type { DeviceGrantRepository } from './repository.ts';

type Bounds = Pick<
  Config,
  'DEVICE_GRANT_MAX_PENDING_PER_ADDRESS' | 'DEVICE_GRANT_MAX_PENDING' | 'DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT'
>;

/**
 * The bounds on TV sign-in codes, counted in the store so every process holds the same ones: per address
 * (waiting or refused codes), overall (waiting codes), per account (refusals). Each answer names when the
 * first counted code expires (Retry-After), and is counted for /metrics by `onLimited`.
 */
export function createGrantBounds(
  config: Bounds,
  grants: Pick<DeviceGrantRepository, 'heldBy' | 'pendingOverall' | 'refusedBy'>,
  onLimited: (limit: 'address' | 'overall' | 'account') => void = () => {},
) {
  const secondsTo = (next: number | undefined, now: number) =>
    Math.max(1, Math.ceil(((next ?? now) - now) / 1000));

  /** A refusal past the account's bound: 429; the grant stays pending and expires (it counts overall). */
  async function mayRefuse(accountNumber: string, now: number): Promise<void> {
    const refused = await grants.refusedBy(accountNumber, now);
    if (refused.count < config.DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT) return;
    onLimited('account');
    const seconds = secondsTo(refused.nextExpiry, now);
    throw e.SIGN_IN_REFUSALS_LIMITED(
      `${refused.count} TV sign-ins were refused lately; this code expires on its own, or retry in ${seconds} seconds.`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }

  /** A request for codes past a bound: 429 (this address) or 503 (overall), with Retry-After. */
  async function withinBounds(addressHash: string, now: number): Promise<void> {
    const retryAfter = (next: number | undefined) => secondsTo(next, now);
    const held = await grants.heldBy(addressHash, now);
    if (held.count >= config.DEVICE_GRANT_MAX_PENDING_PER_ADDRESS) {
      onLimited('address');
      const seconds = retryAfter(held.nextExpiry);
      throw e.PENDING_SIGN_INS_LIMITED(
        `${held.count} sign-in codes are waiting or were refused from this address; retry in ${seconds} seconds.`,
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    const pending = await grants.pendingOverall(now);
    if (pending.count >= config.DEVICE_GRANT_MAX_PENDING) {
      onLimited('overall');
      const seconds = retryAfter(pending.nextExpiry);
      throw e.SIGN_INS_BUSY(`Too many TV sign-ins are waiting; retry in ${seconds} seconds.`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
  }

  return { mayRefuse, withinBounds };
}
