import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import {
  type AssistantLocation,
  assistantIssuer,
  createAssistantTokenVerifier,
} from '../../core/assistant-tokens.ts';
import {
  ACCOUNT_NUMBER_PATTERN,
  CLIENT_API_AUDIENCE,
  type DelegationScope,
  delegationScopes,
  MAX_DELEGATION_TTL_SECONDS,
} from '../../core/delegation.ts';
import { subsystemErrors } from '../../core/errors.ts';
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
   * unexpired, living at most 300 s, with well-formed claims. Else 401 TOKEN_INVALID; 502 when the key
   * set cannot be fetched.
   */
  principal(token: string): Promise<AssistantPrincipal>;
}

export function createDelegatedTokens(assistant: AssistantLocation, logger: Logger): DelegatedTokens {
  const verifier = createAssistantTokenVerifier(assistant, CLIENT_API_AUDIENCE);
  const refused = (why: string) => {
    logger.info({ reason: why }, 'delegated token refused');
    return bearerRefusals.TOKEN_INVALID();
  };
  return {
    isAssistants(token) {
      try {
        return decodeJwt(token).iss === assistantIssuer(assistant);
      } catch {
        return false;
      }
    },
    async principal(token) {
      const outcome = await verifier.verify(token);
      if (!outcome.ok) {
        if (outcome.reason === 'keys-unavailable') {
          throw subsystemErrors.SUBSYSTEM_ERROR("The assistant's public keys could not be fetched.", {
            cause: outcome.cause,
          });
        }
        throw refused(outcome.detail);
      }
      const { sub, acc, scope, act, jti, iat, exp } = outcome.payload as Record<string, unknown>;
      if (typeof iat !== 'number' || typeof exp !== 'number') throw refused('no iat or exp');
      if (exp - iat > MAX_DELEGATION_TTL_SECONDS + LIFETIME_LEEWAY_SECONDS) throw refused('lives too long');
      if (typeof sub !== 'string' || typeof jti !== 'string') throw refused('no sub or jti');
      if (typeof acc !== 'string' || !accountNumberPattern.test(acc)) throw refused('no account');
      const actor = (act as { sub?: unknown } | undefined)?.sub;
      if (typeof actor !== 'string') throw refused('no act');
      const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
      if (scopes.length === 0 || !scopes.every((item) => knownScopes.has(item))) throw refused('bad scope');
      return {
        kind: 'assistant',
        accountNumber: acc,
        assistantId: sub,
        scopes: new Set(scopes as DelegationScope[]),
        actor,
        tokenId: jti,
      };
    },
  };
}
