import {
  createRemoteJWKSet,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import type { Config } from './config.ts';
import type { ServiceName } from './core.ts';

/**
 * Tokens the assistant signs (assistant-auth holds its private keys), checked by the services it calls:
 * the agents server (audience `sintonia-agents`) and the client API (delegated tokens, audience
 * `sintonia-client-api`). Both verify against the assistant's published key set.
 */

/** Where the assistant is: what a service needs to know to check its tokens (a Core is one). */
export interface AssistantLocation {
  readonly config: Pick<Config, 'PUBLIC_BASE_URL' | 'ASSISTANT_JWKS_URL'>;
  serviceUrl(name: ServiceName): string;
}

/** The assistant's issuer, as assistant-auth names itself in its discovery document. */
export function assistantIssuer(core: {
  readonly config: Pick<Config, 'PUBLIC_BASE_URL'>;
  serviceUrl(name: 'assistant-auth'): string;
}): string {
  return `${core.config.PUBLIC_BASE_URL ?? core.serviceUrl('assistant-auth')}/openid/issuer`;
}

/** Where the assistant's public keys are: ASSISTANT_JWKS_URL, else assistant-auth's /openid/jwk. */
export function assistantJwksUrl(core: AssistantLocation): string {
  return core.config.ASSISTANT_JWKS_URL ?? `${core.serviceUrl('assistant-auth')}/openid/jwk`;
}

const ALGORITHMS = ['ES256', 'RS256'];

/** Why a token was not accepted: the caller's fault (`invalid`) or ours (`keys-unavailable`, a 502). */
export type AssistantTokenOutcome =
  | { ok: true; payload: JWTPayload }
  | { ok: false; reason: 'invalid'; detail: string }
  | { ok: false; reason: 'keys-unavailable'; cause: unknown };

export interface AssistantTokenVerifier {
  verify(token: string): Promise<AssistantTokenOutcome>;
}

/** A failure to fetch the key set is ours (502), not the caller's: their token may well be valid. */
function isKeySetUnavailable(error: unknown): boolean {
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) return true;
  // jose raises its bare base class when the key set answers other than 200.
  if (error instanceof joseErrors.JOSEError) return error.constructor === joseErrors.JOSEError;
  return error instanceof Error;
}

/**
 * Verifies the assistant's tokens for one audience: signature by a published key (jose caches the key
 * set and fetches it again for an unknown kid, at most every 30 s), issuer, audience and expiry. The key
 * set's URL is read at each call: a service learns its siblings' addresses only once they listen.
 */
export function createAssistantTokenVerifier(
  core: AssistantLocation,
  audience: string,
): AssistantTokenVerifier {
  const keySets = new Map<string, JWTVerifyGetKey>();
  const keySetFor = (url: string) => {
    let keySet = keySets.get(url);
    if (!keySet) {
      keySet = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cooldownDuration: 30000 });
      keySets.set(url, keySet);
    }
    return keySet;
  };
  return {
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, keySetFor(assistantJwksUrl(core)), {
          issuer: assistantIssuer(core),
          audience,
          algorithms: ALGORITHMS,
          requiredClaims: ['exp'],
        });
        return { ok: true, payload };
      } catch (error) {
        if (isKeySetUnavailable(error)) return { ok: false, reason: 'keys-unavailable', cause: error };
        return { ok: false, reason: 'invalid', detail: (error as Error).message };
      }
    },
  };
}
