import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core/core.ts';
import { authErrors } from '../../core/errors.ts';
import { authenticateApiKey } from '../../core/http/api-key-guard.ts';
import { requestLimiter } from '../../core/http/request-limits.ts';
import type { SessionRepository } from '../sessions/repository.ts';
import { bearerRefusals } from './credentials.ts';
import type { Principal } from './principal.ts';
import type { SigningKeys } from './signing-keys.ts';
import { type AccessClaims, bearer, verifyAccessToken } from './tokens.ts';

/** A hook usable as onRequest or preHandler: request params are known at both. */
export type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
/** A check that needs no I/O, as a callback hook: no promise and no extra tick per request. */
export type SyncGuard = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

export interface Guards {
  /**
   * onRequest: a device access token (`Authorization: Bearer <JWT>`, ES256, our kid, its session still
   * open and not idle) or an operator key (`X-API-Key`, class backoffice) sets `request.principal`.
   * No credentials, or bad ones: 401. A valid key of another class: 403.
   */
  authenticate: Guard;
  /** The principal's account must be the one in the path parameter `param`; operators pass. Else 403. */
  requireAccount(param: string): SyncGuard;
  /** The principal's userHash must be the path parameter `param`; operators pass. Else 403. */
  requireUserHash(param: string): SyncGuard;
  /** Operator keys only. */
  requireOperator: SyncGuard;
}

/** A session's last use is written at most this often: a coarse idle clock, not a write per request. */
const TOUCH_RESOLUTION_MS = 60_000;

/** Most verified tokens remembered per process (about 1 KiB each). */
const VERIFIED_CACHE_SIZE = 10_000;

const noCredentials = () =>
  bearerRefusals.CREDENTIALS_MISSING(
    'A device access token (Authorization: Bearer) or an operator key (X-API-Key) is required.',
  );

/**
 * Builds the client API's guards, once, in its composition root (composition.ts); the errors they
 * raise are declared in credentials.ts, whence the API document lists them.
 */
export function createGuards(core: Core, keys: SigningKeys, sessions: SessionRepository): Guards {
  const idleMs = core.config.SESSION_IDLE_TIMEOUT * 1000;
  const { CLIENT_API_DEVICE_REQUEST_LIMIT, REQUEST_LIMIT_WINDOW } = core.config;
  // Operator keys are limited with every API key, where the key is verified (core).
  const deviceLimit = requestLimiter(CLIENT_API_DEVICE_REQUEST_LIMIT, REQUEST_LIMIT_WINDOW);

  // Verified signatures, by token: a token never changes, so its ES256 check is done once per process.
  // Expiry is re-checked on every hit and the session's state on every request.
  // Keyed by the token's last 32 characters (signature bytes): hashing the whole ~600-character token for
  // the lookup cost ~1 µs per request. A hit counts only if the whole token is the one verified.
  const verified = new Map<string, { token: string; claims: AccessClaims & { exp: number } }>();
  const cacheKey = (token: string) => token.slice(-32);

  async function claimsOf(token: string, now: number): Promise<AccessClaims | undefined> {
    const hit = verified.get(cacheKey(token));
    if (hit && hit.token === token) return hit.claims.exp * 1000 > now ? hit.claims : undefined;
    const claims = await verifyAccessToken(keys, token);
    if (!claims) return undefined;
    if (verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = verified.keys().next();
      if (!oldest.done) verified.delete(oldest.value);
    }
    verified.set(cacheKey(token), { token, claims });
    return claims;
  }

  async function fromToken(token: string): Promise<Extract<Principal, { kind: 'device' }>> {
    const claims = await claimsOf(token, Date.now());
    if (!claims) throw bearerRefusals.TOKEN_INVALID();
    // Revocation is immediate: the session's state is read on every request, from this process's memory
    // only while no session has been closed anywhere since it was read (sessions/repository.ts).
    let state = await sessions.state(claims.sid);
    const now = Date.now();
    // Idle by what this process last saw: another process may have used the session since.
    if (state && now - state.last_used_at > idleMs) state = await sessions.state(claims.sid, true);
    if (!state || state.closed_at !== null || now - state.last_used_at > idleMs) {
      throw bearerRefusals.TOKEN_INVALID();
    }
    if (now - state.last_used_at > TOUCH_RESOLUTION_MS) await sessions.touch(claims.sid, now);
    return {
      kind: 'device',
      accountNumber: claims.acc,
      platformUserId: claims.sub,
      userHash: claims.uh,
      deviceId: claims.did,
      deviceClass: claims.dcl,
      sessionId: claims.sid,
      qspVersion: claims.qsp,
    };
  }

  const principalOf = (request: FastifyRequest): Principal => {
    if (!request.principal) throw noCredentials();
    return request.principal;
  };

  const param = (request: FastifyRequest, name: string): unknown =>
    (request.params as Record<string, unknown> | undefined)?.[name];

  /** A device token passes only when its `field` is the path parameter `name`; operators pass. */
  const sameAs =
    (field: 'accountNumber' | 'userHash', name: string, whose: string): SyncGuard =>
    // Fastify passes a synchronous throw from a callback hook to the error handler, like a rejection.
    (request, _reply, done) => {
      const principal = principalOf(request);
      if (principal.kind === 'device' && principal[field] !== param(request, name)) {
        throw authErrors.ACCESS_DENIED(`This token may not act on ${whose} resources.`);
      }
      done();
    };

  return {
    async authenticate(request) {
      if (request.headers['x-api-key'] !== undefined) {
        const key = await authenticateApiKey(core.apiKeys, request);
        if (key?.keyClass !== 'backoffice') {
          throw authErrors.ACCESS_DENIED('Only operator (backoffice) keys may call client API operations.');
        }
        request.principal = { kind: 'operator', keyId: key.id };
        return;
      }
      const token = bearer(request.headers.authorization);
      if (!token) throw noCredentials();
      const principal = await fromToken(token);
      request.principal = principal;
      deviceLimit?.hit(`${principal.accountNumber}\n${principal.deviceId}`);
    },

    requireAccount: (name) => sameAs('accountNumber', name, "another account's"),
    requireUserHash: (name) => sameAs('userHash', name, "another user's"),

    requireOperator(request, _reply, done) {
      if (principalOf(request).kind !== 'operator') {
        throw authErrors.ACCESS_DENIED('This operation is for operators (backoffice keys) only.');
      }
      done();
    },
  };
}
