import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import type { ApiKeyStore } from '../../core/api-keys/api-keys.ts';
import {
  type AssistantLocation,
  assistantIssuer,
  assistantJwksUrl,
  createAssistantTokenVerifier,
} from '../../core/assistant-tokens.ts';
import type { Config } from '../../core/config.ts';
import {
  ACCOUNT_NUMBER_PATTERN,
  CLIENT_API_AUDIENCE,
  type DelegationScope,
  delegationScopes,
  MAX_DELEGATION_TTL_SECONDS,
  SIGN_IN_CHECK_ACTOR,
} from '../../core/delegation.ts';
import { subsystemErrors } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import { bearerRefusals } from './credentials.ts';

/** The assistant acting for its linked user, with a delegated token: one account, some scopes. */
export interface AssistantPrincipal {
  kind: 'assistant';
  accountNumber: string;
  /** The assistant user it acts for. */
  assistantId: string;
  scopes: ReadonlySet<DelegationScope>;
  /** The acting party (`act.sub`): the runtime key that asked for the token. */
  actor: string;
  tokenId: string;
  /** The device session the link rests on (a chat page sign-in's): the token stands only while it is open. */
  sessionId?: string;
}

/** A second of leeway on top of the longest lifetime, for clocks a little apart. */
const LIFETIME_LEEWAY_SECONDS = 1;
const accountNumberPattern = new RegExp(ACCOUNT_NUMBER_PATTERN);
const knownScopes = new Set<string>(delegationScopes);

export interface DelegatedTokens {
  /** Whether a bearer token claims to be the assistant's (by its unverified issuer): a cheap sort. */
  isAssistants(token: string): boolean;
  /**
   * The principal of a delegated token: signed by a published key of the assistant, for this audience,
   * unexpired, living at most 300 s, with well-formed claims, and its link still standing at the assistant
   * (asked at each use). Else 401 TOKEN_INVALID; 502 when the key set or the link cannot be checked.
   */
  principal(token: string, request: RequestLog): Promise<AssistantPrincipal>;
}

/**
 * Where the assistant answers and how long it may take, and the family's API keys (a delegated token
 * stands only while the runtime key that obtained it does): a process of the family (its core) is one.
 */
interface AssistantService extends AssistantLocation {
  readonly config: AssistantLocation['config'] & Pick<Config, 'SUBSYSTEM_TIMEOUT_MS'>;
  readonly apiKeys: Pick<ApiKeyStore, 'isLive'>;
}

/** The `act.sub` of a delegated token: the runtime key that asked for it (assistant-auth's delegations.ts). */
const ACTOR_KEY = /^runtime-key:([0-9a-f]{16})$/;

/** The request a token came with: its log (whose lines carry its request id) and that id, passed on. */
export interface RequestLog {
  readonly id: string;
  readonly log: Pick<Logger, 'info'>;
}

export function createDelegatedTokens(assistant: AssistantService): DelegatedTokens {
  const verifier = createAssistantTokenVerifier(assistant, CLIENT_API_AUDIENCE);
  const refused = (request: RequestLog, why: string) => {
    request.log.info({ reason: why }, 'delegated token refused');
    return bearerRefusals.TOKEN_INVALID();
  };

  // Asked at each use, not remembered: an unlinked or removed user's tokens stop at once in every process.
  // The assistant answers beside its key set (`…/openid/jwk` → `…/delegations/status`).
  async function stands(token: string, request: RequestLog): Promise<boolean> {
    const answer = await callSubsystem<{ active?: unknown }>({
      subsystem: 'assistant-auth',
      url: new URL('../delegations/status', assistantJwksUrl(assistant)).href,
      method: 'POST',
      body: { token },
      timeoutMs: assistant.config.SUBSYSTEM_TIMEOUT_MS,
      requestId: request.id,
    });
    return answer.body?.active === true;
  }

  return {
    isAssistants(token) {
      try {
        return decodeJwt(token).iss === assistantIssuer(assistant);
      } catch {
        return false;
      }
    },
    async principal(token, request) {
      const outcome = await verifier.verify(token);
      if (!outcome.ok) {
        if (outcome.reason === 'keys-unavailable') {
          throw subsystemErrors.SUBSYSTEM_ERROR("The assistant's public keys could not be fetched.", {
            cause: outcome.cause,
          });
        }
        throw refused(request, outcome.detail);
      }
      const { sub, acc, scope, act, jti, iat, exp } = outcome.payload as Record<string, unknown>;
      if (typeof iat !== 'number' || typeof exp !== 'number') throw refused(request, 'no iat or exp');
      if (exp - iat > MAX_DELEGATION_TTL_SECONDS + LIFETIME_LEEWAY_SECONDS)
        throw refused(request, 'lives too long');
      if (typeof sub !== 'string' || typeof jti !== 'string') throw refused(request, 'no sub or jti');
      if (typeof acc !== 'string' || !accountNumberPattern.test(acc)) throw refused(request, 'no account');
      const actor = (act as { sub?: unknown } | undefined)?.sub;
      if (typeof actor !== 'string') throw refused(request, 'no act');
      const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
      if (scopes.length === 0 || !scopes.every((item) => knownScopes.has(item)))
        throw refused(request, 'bad scope');
      const { sid } = outcome.payload;
      if (sid !== undefined && typeof sid !== 'string') throw refused(request, 'bad sid');
      // The key is read in the store at each use: revoked anywhere, refused everywhere from the next call.
      if (actor !== SIGN_IN_CHECK_ACTOR) {
        const actorKey = ACTOR_KEY.exec(actor)?.[1];
        if (actorKey === undefined || !(await assistant.apiKeys.isLive(actorKey))) {
          throw refused(request, 'the runtime key that obtained it is revoked');
        }
      }
      if (!(await stands(token, request))) throw refused(request, 'its link is gone');
      return {
        kind: 'assistant',
        accountNumber: acc,
        assistantId: sub,
        scopes: new Set(scopes as DelegationScope[]),
        actor,
        tokenId: jti,
        ...(sid === undefined ? {} : { sessionId: sid }),
      };
    },
  };
}
