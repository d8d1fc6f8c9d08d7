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
 * to; client-api verifies it against the assistant's published keys. Only this service holds the keys.
 */
export function createDelegations(
  settings: Pick<Config, 'DELEGATION_TTL'>,
  { users, signer, audit }: { users: UserService; signer: AssistantSigner; audit: Audit },
) {
  const ttlSeconds = Math.min(settings.DELEGATION_TTL, MAX_DELEGATION_TTL_SECONDS);
  return {
    /** A token for the user's linked account; 409 ASSISTANT_USER_NOT_LINKED when it has none. */
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
  };
}
