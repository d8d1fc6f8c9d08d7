import { randomBytes } from 'node:crypto';
import type { Core } from '../../core/core.ts';
import { keyedHash } from '../../core/secrets.ts';

/** A new account's secret user code: random, never shown. */
export function newUserCode(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The account's userHash: HMAC-SHA256 of its user code under a server key, base64url (43 characters,
 * within the contract's 48). Stable for the account, opaque to clients, and not reversible without the key.
 */
export function userHashOf(core: Core, userCode: string): string {
  return Buffer.from(keyedHash(core.key('client-api:user-hash'), userCode), 'hex').toString('base64url');
}
