import { randomBytes } from 'node:crypto';
import { keyedHash } from '../../core/secrets.ts';

/** What the userHash key is derived for (Core.key). */
export const USER_HASH_KEY_PURPOSE = 'client-api:user-hash';

/** A new account's secret user code: random, never shown. */
export function newUserCode(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The account's userHash: HMAC-SHA256 of its user code under a server key, base64url (43 characters,
 * within the contract's 48). Stable for the account, opaque to clients, and not reversible without the key.
 */
export function userHashOf(key: Buffer, userCode: string): string {
  return Buffer.from(keyedHash(key, userCode), 'hex').toString('base64url');
}
