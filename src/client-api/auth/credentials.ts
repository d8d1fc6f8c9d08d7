import { authErrors, type ErrorSpec, httpErrors } from '../../core/errors.ts';
import { authenticationErrors } from './errors.ts';

/** The kinds of credentials a client API operation takes (its `security` in the API document). */
export type CredentialKind = 'deviceOrOperator' | 'person' | 'operator' | 'refreshToken' | 'basic' | 'none';

/**
 * Refusals of a bearer credential: a device access token, or a refresh token on the token operations.
 * Their 401s challenge with the schemes the operation declares (core/http/challenges.ts).
 */
export const bearerRefusals = {
  CREDENTIALS_MISSING: authErrors.CREDENTIALS_MISSING,
  TOKEN_INVALID: authErrors.TOKEN_INVALID,
};

/** Refusals of HTTP Basic credentials. */
export const basicRefusals = {
  CREDENTIALS_MISSING: authErrors.CREDENTIALS_MISSING,
  CREDENTIALS_INVALID: authenticationErrors.CREDENTIALS_INVALID,
};

/** The token-or-key check (guards.ts's `authenticate`) and the access checks after it (access.ts). */
const tokenOrKey = [
  bearerRefusals.CREDENTIALS_MISSING,
  bearerRefusals.TOKEN_INVALID,
  authErrors.API_KEY_INVALID,
  authErrors.ACCESS_DENIED,
  httpErrors.RATE_LIMITED,
];

/**
 * What checking each kind of credentials may answer (guards.ts and the auth service raise these):
 * `operation()` lists them on every route that takes that kind.
 */
export const credentialErrors: Record<CredentialKind, readonly ErrorSpec[]> = {
  deviceOrOperator: tokenOrKey,
  // A person's own bearer token (a device's, or the assistant's for them); a key is refused like a wrong one.
  person: tokenOrKey,
  operator: tokenOrKey,
  refreshToken: [bearerRefusals.CREDENTIALS_MISSING, authenticationErrors.REFRESH_TOKEN_INVALID],
  basic: [basicRefusals.CREDENTIALS_MISSING, basicRefusals.CREDENTIALS_INVALID],
  none: [],
};

/** The user name and password of an `Authorization: Basic` header; undefined when there are none. */
export function basicCredentials(
  authorization: string | undefined,
): { username: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
