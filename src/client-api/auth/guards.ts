import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { ApiKeyStore } from '../../core/api-keys/api-keys.ts';
import type { DelegationScope } from '../../core/delegation.ts';
import { authErrors } from '../../core/errors.ts';
import { authenticateApiKey } from '../../core/http/api-key-guard.ts';
import { requestLimiter } from '../../core/http/request-limits.ts';
import { DELEGATED_SCOPE } from '../openapi.ts';
import { bearerRefusals } from './credentials.ts';
import type { AssistantPrincipal, DelegatedTokens } from './delegated-tokens.ts';
import type { DevicePrincipal, Principal } from './principal.ts';
import type { SessionGate } from './session-gate.ts';
import type { SigningKeys } from './signing-keys.ts';
import { type AccessClaims, bearer, verifyAccessToken } from './tokens.ts';

/** A hook usable as onRequest or preHandler: request params are known at both. */
export type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
/** A hook as a callback: a check that needs no I/O costs no promise and no extra tick per request. */
export type SyncGuard = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

export interface Guards {
  /**
   * onRequest: a device access token (`Authorization: Bearer <JWT>`, ES256, our kid, its session still
   * open and not idle: SessionGate) or an operator key (`X-API-Key`, class backoffice) sets
   * `request.principal`. No credentials, or bad ones, or a closed or idle session: 401, before anything else
   * about the request is looked at. A valid key of another class: 403.
   */
  authenticate: Guard;
  /** The principal's account must be the one in the path parameter `param`; operators pass. Else 403. */
  requireAccount(param: string): SyncGuard;
  /** The principal's userHash must be the path parameter `param`; operators pass. Else 403. */
  requireUserHash(param: string): SyncGuard;
  /** Operator keys only. */
  requireOperator: SyncGuard;
  /** A person's token only (a device's, or the assistant's for its linked person): operator keys are refused. */
  requirePerson: SyncGuard;
}

export interface GuardDependencies {
  keys: SigningKeys;
  apiKeys: ApiKeyStore;
  gate: SessionGate;
  delegated: DelegatedTokens;
  /** Requests per device token (and per assistant delegation) per window; 0: no limit. */
  deviceRequestLimit: number;
  requestLimitWindowSeconds: number;
}

/** Most verified tokens remembered per process (about 1 KiB each). */
const VERIFIED_CACHE_SIZE = 10_000;

/** A verified device token, as the requests that bring it need it. */
interface VerifiedToken {
  token: string;
  expiresAt: number;
  principal: DevicePrincipal;
  limitKey: string;
}

const devicePrincipal = (claims: AccessClaims): DevicePrincipal => ({
  kind: 'device',
  accountNumber: claims.acc,
  platformUserId: claims.sub,
  userHash: claims.uh,
  deviceId: claims.did,
  deviceClass: claims.dcl,
  sessionId: claims.sid,
  qspVersion: claims.qsp,
});

/** Whose requests the limiter counts together: a device's across its sessions, the assistant's per account. */
const limitKeyOf = (principal: DevicePrincipal | AssistantPrincipal) =>
  principal.kind === 'device'
    ? `${principal.accountNumber}\n${principal.deviceId}`
    : `${principal.accountNumber}\nassistant:${principal.assistantId}`;

const noCredentials = () =>
  bearerRefusals.CREDENTIALS_MISSING(
    'A device access token (Authorization: Bearer) or an operator key (X-API-Key) is required.',
  );

/**
 * Builds the client API's guards, once, in its composition root (composition.ts); the errors they
 * raise are declared in credentials.ts, whence the API document lists them.
 */
export function createGuards(dependencies: GuardDependencies): Guards {
  const { keys, apiKeys, gate, delegated } = dependencies;
  // Operator keys are limited with every API key, where the key is verified (core).
  const deviceLimit = requestLimiter(dependencies.deviceRequestLimit, dependencies.requestLimitWindowSeconds);

  // Verified signatures, by token: a token never changes, so its ES256 check is done once per process;
  // its expiry is checked on every request. Keyed by the token's last 32 characters (its signature), not
  // the whole ~600-character token; a hit counts only if the whole token is the one verified. The entry
  // keeps what every request of the token needs, made once: its principal (frozen: shared by its requests)
  // and its key in the request limiter (a string made once hashes once).
  const verified = new LRUCache<string, VerifiedToken>({ max: VERIFIED_CACHE_SIZE });
  const cacheKey = (token: string) => token.slice(-32);

  /** A device token this process already verified (expired or not), else undefined. */
  const remembered = (token: string) => {
    const hit = verified.get(cacheKey(token));
    return hit?.token === token ? hit : undefined;
  };

  async function verifiedDevice(token: string, now: number): Promise<VerifiedToken | undefined> {
    const known = remembered(token);
    if (known) return known.expiresAt > now ? known : undefined;
    const claims = await verifyAccessToken(keys, token);
    if (!claims) return undefined;
    const principal = Object.freeze(devicePrincipal(claims));
    const entry = { token, expiresAt: claims.exp * 1000, principal, limitKey: limitKeyOf(principal) };
    verified.set(cacheKey(token), entry);
    return entry;
  }

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
    const principal = await delegated.principal(token, request);
    if (!principal.scopes.has(scope as DelegationScope)) {
      throw authErrors.ACCESS_DENIED(`This delegated token lacks the scope ${scope}.`);
    }
    // A link a sign-in made stands only while that sign-in's session is open, as the device's own tokens.
    if (principal.sessionId !== undefined) await gate.check({ sessionId: principal.sessionId });
    return principal;
  }

  const accept = (request: FastifyRequest, principal: Principal, limitKey: string | undefined) => {
    request.principal = principal;
    if (limitKey !== undefined) deviceLimit?.hit(limitKey);
  };

  /** Sets the request's principal; a device token's session is checked every time. */
  async function authenticate(request: FastifyRequest): Promise<void> {
    if (request.headers['x-api-key'] !== undefined) {
      const key = await authenticateApiKey(apiKeys, request);
      if (key?.keyClass !== 'backoffice') {
        throw authErrors.ACCESS_DENIED('Only operator (backoffice) keys may call client API operations.');
      }
      return accept(request, { kind: 'operator', keyId: key.id }, undefined);
    }
    const token = bearer(request.headers.authorization);
    if (!token) throw noCredentials();
    // A device token is the common case: the assistant's issuer is looked for only in what is not one.
    if (!remembered(token) && delegated.isAssistants(token)) {
      const principal = await fromDelegatedToken(request, token);
      return accept(request, principal, limitKeyOf(principal));
    }
    const device = await verifiedDevice(token, Date.now());
    if (!device) throw bearerRefusals.TOKEN_INVALID();
    await gate.check(device.principal);
    accept(request, device.principal, device.limitKey);
  }

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
    authenticate,

    requireAccount: (name) => sameAs('accountNumber', name, "another account's"),
    requireUserHash: (name) => sameAs('userHash', name, "another user's"),

    requireOperator(request, _reply, done) {
      if (principalOf(request).kind !== 'operator') {
        throw authErrors.ACCESS_DENIED('This operation is for operators (backoffice keys) only.');
      }
      done();
    },

    requirePerson(request, _reply, done) {
      if (principalOf(request).kind === 'operator') {
        throw authErrors.ACCESS_DENIED('Only a person signed in to the account may call this operation.');
      }
      done();
    },
  };
}
