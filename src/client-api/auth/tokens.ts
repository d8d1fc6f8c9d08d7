import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import type { SigningKeys } from './signing-keys.ts';

export const TOKEN_ISSUER = 'sintonia-client-api';
export const TOKEN_AUDIENCE = 'sintonia-client-api';

/** The claims of a device access token: everything the principal needs, so a check reads no user row. */
export interface AccessClaims {
  sub: string;
  acc: string;
  uh: string;
  did: string;
  dcl: string;
  sid: string;
  qsp: string;
  scope?: string;
  tier?: string;
  prf?: number;
}

export async function signAccessToken(
  keys: SigningKeys,
  claims: AccessClaims,
  ttlSeconds: number,
  now = Date.now(),
): Promise<string> {
  const { kid, privateKey } = await keys.signing();
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(privateKey);
}

const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** The claims of a valid, unexpired token of ours; undefined for anything else. */
export async function verifyAccessToken(
  keys: SigningKeys,
  token: string,
): Promise<(AccessClaims & { exp: number }) | undefined> {
  try {
    const { kid, alg } = decodeProtectedHeader(token);
    if (alg !== 'ES256' || !isString(kid)) return undefined;
    const key = await keys.verifying(kid);
    if (!key) return undefined;
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['ES256'],
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
    });
    const { sub, acc, uh, did, dcl, sid, qsp } = payload;
    if (![sub, acc, uh, did, dcl, sid, qsp].every(isString) || typeof payload.exp !== 'number')
      return undefined;
    return payload as unknown as AccessClaims & { exp: number };
  } catch {
    return undefined;
  }
}

/** Refresh tokens: `rt1.<sessionId>.<secret>`; only SHA-256 of the 256-bit secret is stored. */
export function newRefreshToken(sessionId: string): { token: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { token: `rt1.${sessionId}.${secret}`, hash: hashSecret(secret) };
}

export function parseRefreshToken(token: string): { sessionId: string; hash: string } | undefined {
  const match = /^rt1\.([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match?.[1] || !match[2]) return undefined;
  return { sessionId: match[1], hash: hashSecret(match[2]) };
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export function newSessionId(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * What follows `Bearer ` in an Authorization header, unchecked: only to look it up among the tokens
 * already verified (none holds whitespace, so a hit is a well-formed credential); a miss goes through
 * `bearer`. Spares the common request a scan of its ~600 characters.
 */
export function bearerAsSent(header: string | undefined): string | undefined {
  return header?.startsWith('Bearer ') ? header.slice(7) : undefined;
}

/** The bearer credential of an Authorization header, or undefined. */
export function bearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // The common form, `Bearer <token>`, without a regular expression for the prefix.
  const token = bearerAsSent(header);
  if (token && !/\s/.test(token)) return token;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
