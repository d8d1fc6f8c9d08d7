import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core/core.ts';
import type { DelegationScope } from '../../core/delegation.ts';
import { authErrors } from '../../core/errors.ts';
import { authenticateApiKey } from '../../core/http/api-key-guard.ts';
import { requestLimiter } from '../../core/http/request-limits.ts';
import { DELEGATED_SCOPE } from '../openapi.ts';
import type { SessionRepository, SessionState } from '../sessions/repository.ts';
import { bearerRefusals } from './credentials.ts';
import { type AssistantPrincipal, createDelegatedTokens } from './delegated-tokens.ts';
import { type DevicePrincipal, type Principal, pendingSessionCheck, type SessionCheck } from './principal.ts';
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
  /**
   * The access hooks of an operation whose own statement folds the session check (see SessionCheck in
   * principal.ts), with `then`'s guards after them. On PostgreSQL, onRequest verifies a device token's
   * signature and expiry only and leaves `principal.sessionCheck` pending for the service to settle with
   * the state its statement read; onSend gives an answer that leaves it pending (an error raised before
   * the statement ran, or a handler that does not fold) the ordinary check first, so a closed session is
   * 401 whatever the route does. On SQLite the ordinary check runs at once (from memory).
   */
  foldingSessionCheck(then?: { onRequest?: SyncGuard[]; preHandler?: SyncGuard[] }): FoldingAccess;
  /** The principal's account must be the one in the path parameter `param`; operators pass. Else 403. */
  requireAccount(param: string): SyncGuard;
  /** The principal's userHash must be the path parameter `param`; operators pass. Else 403. */
  requireUserHash(param: string): SyncGuard;
  /** Operator keys only. */
  requireOperator: SyncGuard;
}

/** An onSend hook, callback style (no promise per request when it has nothing to do): passes on the payload. */
export type SendGuard = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
) => void;

/** A route's error handler; the instance's own (`request.server.errorHandler`) renders what it hands over. */
export type RouteErrorHandler = (
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) => unknown;

/** Route options (spread into a route's): the hooks of an operation that folds the session check. */
export interface FoldingAccess {
  onRequest: Array<Guard | SyncGuard>;
  preHandler: SyncGuard[];
  onSend: SendGuard[];
  errorHandler: RouteErrorHandler;
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

  /** The claims of a device token this process already verified (expired or not), else undefined. */
  const rememberedClaims = (token: string) => {
    const hit = verified.get(cacheKey(token));
    return hit?.token === token ? hit.claims : undefined;
  };

  async function claimsOf(token: string, now: number): Promise<AccessClaims | undefined> {
    const remembered = rememberedClaims(token);
    if (remembered) return remembered.exp * 1000 > now ? remembered : undefined;
    const claims = await verifyAccessToken(keys, token);
    if (!claims) return undefined;
    if (verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = verified.keys().next();
      if (!oldest.done) verified.delete(oldest.value);
    }
    verified.set(cacheKey(token), { token, claims });
    return claims;
  }

  /** Refuses a missing, closed or idle session; records its use at most every TOUCH_RESOLUTION_MS. */
  async function accept(sessionId: string, state: SessionState | undefined, now: number): Promise<void> {
    if (!state || state.closed_at !== null || now - state.last_used_at > idleMs) {
      throw bearerRefusals.TOKEN_INVALID();
    }
    if (now - state.last_used_at > TOUCH_RESOLUTION_MS) await sessions.touch(sessionId, now);
  }

  /**
   * The ordinary check, a read of its own. Revocation is immediate: the session's state is read on every
   * request (on SQLite from this process's memory only while no session has been closed anywhere since it
   * was read: sessions/repository.ts).
   */
  async function checkSession(sessionId: string): Promise<void> {
    let state = await sessions.state(sessionId);
    const now = Date.now();
    // Idle by what this process last saw: another process may have used the session since.
    if (state && now - state.last_used_at > idleMs) state = await sessions.state(sessionId, true);
    await accept(sessionId, state, now);
  }

  function pendingCheck(sessionId: string, now: number): SessionCheck {
    let settled = false;
    return {
      sessionId,
      now,
      idleBefore: now - idleMs,
      get settled() {
        return settled;
      },
      async settle(state) {
        settled = true;
        await accept(sessionId, state, now);
      },
      async verify() {
        settled = true;
        await checkSession(sessionId);
      },
    };
  }

  const delegated = createDelegatedTokens(core);

  /**
   * The assistant's delegated token: only on an operation that names a scope the token holds
   * (`operation({ delegated })`), and (requireAccount) only on the token's own account.
   */
  async function fromDelegatedToken(request: FastifyRequest, token: string): Promise<AssistantPrincipal> {
    const scope = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[DELEGATED_SCOPE];
    // An operation without a scope refuses every delegated token: no need to fetch the assistant's keys.
    if (typeof scope !== 'string') {
      throw authErrors.ACCESS_DENIED('The assistant may not call this operation on behalf of a person.');
    }
    const principal = await delegated.principal(token);
    if (!principal.scopes.has(scope as DelegationScope)) {
      throw authErrors.ACCESS_DENIED(`This delegated token lacks the scope ${scope}.`);
    }
    return principal;
  }

  function devicePrincipal(claims: AccessClaims, now: number, fold: boolean): DevicePrincipal {
    const principal: DevicePrincipal = {
      kind: 'device',
      accountNumber: claims.acc,
      platformUserId: claims.sub,
      userHash: claims.uh,
      deviceId: claims.did,
      deviceClass: claims.dcl,
      sessionId: claims.sid,
      qspVersion: claims.qsp,
    };
    if (fold) principal.sessionCheck = pendingCheck(claims.sid, now);
    return principal;
  }

  /** The token's principal; its session checked now, or left to the operation when `fold`. */
  async function fromToken(token: string, fold: boolean): Promise<DevicePrincipal> {
    const now = Date.now();
    const claims = await claimsOf(token, now);
    if (!claims) throw bearerRefusals.TOKEN_INVALID();
    const principal = devicePrincipal(claims, now, fold);
    if (!fold) await checkSession(claims.sid);
    return principal;
  }

  async function authenticate(request: FastifyRequest, fold: boolean): Promise<void> {
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
    // A device token is the common case: the assistant's issuer is looked for only in what is not one.
    if (!rememberedClaims(token) && delegated.isAssistants(token)) {
      const assistant = await fromDelegatedToken(request, token);
      request.principal = assistant;
      deviceLimit?.hit(`${assistant.accountNumber}\nassistant:${assistant.assistantId}`);
      return;
    }
    const principal = await fromToken(token, fold);
    request.principal = principal;
    deviceLimit?.hit(`${principal.accountNumber}\n${principal.deviceId}`);
  }

  /**
   * A folding route's principal when it needs no I/O at all: a device token this process already verified
   * and not expired, its session check left pending. Anything else (a key, a new token, an expired one, the
   * assistant's): undefined, for `authenticate` to settle or refuse.
   */
  function knownDeviceToken(request: FastifyRequest): DevicePrincipal | undefined {
    if (request.headers['x-api-key'] !== undefined) return undefined;
    const token = bearer(request.headers.authorization);
    if (!token) return undefined;
    const claims = rememberedClaims(token);
    const now = Date.now();
    if (!claims || claims.exp * 1000 <= now) return undefined;
    return devicePrincipal(claims, now, true);
  }

  // Folding pays only where the ordinary check is a round trip: PostgreSQL. SQLite's is a memory read.
  const folds = core.database.postgres !== undefined;
  // Callback style: the common case (a token seen before) costs no promise and no extra tick.
  const authenticateFolding: SyncGuard = (request, _reply, done) => {
    const known = folds ? knownDeviceToken(request) : undefined;
    if (known === undefined) {
      authenticate(request, folds).then(() => done(), done);
      return;
    }
    request.principal = known;
    deviceLimit?.hit(`${known.accountNumber}\n${known.deviceId}`);
    done();
  };
  // A success that leaves the check pending is a route that forgot to fold: it gets the check now, and a
  // refusal replaces its answer (through the route's error handler below).
  const settleBeforeSend: SendGuard = (request, _reply, payload, done) => {
    const check = pendingSessionCheck(request.principal);
    if (check === undefined) return done(null, payload);
    request.log.warn('an operation that folds the session check answered without settling it');
    check.verify().then(() => done(null, payload), done);
  };
  // A refusal raised before the statement ran (validation, another account, another device): a closed
  // session's token is told 401 first, as the ordinary check would have. Then the app's own handler.
  const settleBeforeError: RouteErrorHandler = async (error, request, reply) => {
    const check = pendingSessionCheck(request.principal);
    let answered: unknown = error;
    if (check !== undefined) {
      try {
        await check.verify();
      } catch (refusal) {
        answered = refusal;
      }
    }
    return request.server.errorHandler(answered as FastifyError, request, reply);
  };

  const principalOf = (request: FastifyRequest): Principal => {
    if (!request.principal) throw noCredentials();
    return request.principal;
  };

  const param = (request: FastifyRequest, name: string): unknown =>
    (request.params as Record<string, unknown> | undefined)?.[name];

  /** Whose resources a token may act on: the assistant only on its linked account, never a user's own. */
  const ownerOf = (principal: Principal, field: 'accountNumber' | 'userHash'): string | undefined => {
    if (principal.kind === 'device') return principal[field];
    return principal.kind === 'assistant' && field === 'accountNumber' ? principal.accountNumber : undefined;
  };

  /** A device or delegated token passes only when its `field` is the path parameter `name`; operators pass. */
  const sameAs =
    (field: 'accountNumber' | 'userHash', name: string, whose: string): SyncGuard =>
    // Fastify passes a synchronous throw from a callback hook to the error handler, like a rejection.
    (request, _reply, done) => {
      const principal = principalOf(request);
      if (principal.kind === 'operator') return done();
      if (ownerOf(principal, field) !== param(request, name)) {
        throw authErrors.ACCESS_DENIED(`This token may not act on ${whose} resources.`);
      }
      done();
    };

  return {
    authenticate: (request) => authenticate(request, false),

    foldingSessionCheck: (then = {}) => ({
      onRequest: [authenticateFolding, ...(then.onRequest ?? [])],
      preHandler: then.preHandler ?? [],
      onSend: [settleBeforeSend],
      errorHandler: settleBeforeError,
    }),

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
