import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Config } from '../../core/config.ts';
import {
  CLIENT_API_AUDIENCE,
  type DelegationClaims,
  type DelegationScope,
  delegationScopes,
  MAX_DELEGATION_TTL_SECONDS,
} from '../../core/delegation.ts';
import type { Audit } from '../audit.ts';
import type { AssistantSigner } from '../signing/signer.ts';
import type { Delegation } from './schemas.ts';
import type { UserService } from './service.ts';

/**
 * Delegated tokens: the assistant runtime asks for one to act on the pay-TV account its user is linked
 * to; client-api verifies it against the assistant's published keys, and asks here whether the link it
 * rests on still holds. Only this service holds the keys.
 */
export function createDelegations(
  settings: Pick<Config, 'DELEGATION_TTL'>,
  { users, signer, audit }: { users: UserService; signer: AssistantSigner; audit: Audit },
) {
  const ttlSeconds = Math.min(settings.DELEGATION_TTL, MAX_DELEGATION_TTL_SECONDS);

  /** The subject and account of a token this service signed for client-api and that has not expired. */
  async function claimsOf(token: string): Promise<{ sub: string; acc: string } | undefined> {
    try {
      const keys = createLocalJWKSet(await signer.jwks());
      const { payload } = await jwtVerify(token, keys, {
        issuer: signer.issuer(),
        audience: CLIENT_API_AUDIENCE,
        requiredClaims: ['exp'],
      });
      const { sub, acc } = payload as Record<string, unknown>;
      return typeof sub === 'string' && typeof acc === 'string' ? { sub, acc } : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    /**
     * A token for the user's linked account; 409 ASSISTANT_USER_NOT_LINKED when it has none, 409
     * ASSISTANT_USER_SIGNED_OUT when the sign-in the link rests on has ended.
     */
    async issue(
      assistantId: string,
      requested: readonly DelegationScope[] | undefined,
      actingKeyId: string,
    ): Promise<Delegation> {
      const link = await users.linkedAccount(assistantId);
      const scope = [...(requested ?? delegationScopes)];
      const actor = `runtime-key:${actingKeyId}`;
      const claims: DelegationClaims = {
        sub: assistantId,
        acc: link.accountNumber,
        scope: scope.join(' '),
        act: { sub: actor },
        // client-api refuses the token once the sign-in's session is closed.
        ...(link.sessionId === undefined ? {} : { sid: link.sessionId }),
      };
      const token = await signer.sign({ ...claims }, { audience: CLIENT_API_AUDIENCE, ttlSeconds });
      await audit(actor, 'assistant-user.delegate', assistantId);
      return {
        token,
        tokenType: 'Bearer',
        expiresIn: ttlSeconds,
        audience: CLIENT_API_AUDIENCE,
        accountNumber: link.accountNumber,
        scope,
      };
    },

    /**
     * Whether a delegated token still stands here: signed by this service for client-api, unexpired, and
     * its user still there and linked to its account. The session it may rest on is client-api's to check.
     */
    async active(token: string): Promise<boolean> {
      const claims = await claimsOf(token);
      return claims !== undefined && users.holdsLink(claims.sub, claims.acc);
    },
  };
}
