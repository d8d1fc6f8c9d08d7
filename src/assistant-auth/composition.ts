import type { Core } from '../core/core.ts';
import { createAccess } from './access.ts';
import { createCallbackParams } from './callbacks/callback-param.ts';
import { createCallbackNonceRepository } from './callbacks/nonce-repository.ts';
import { selectConversationChannel } from './channel/select-channel.ts';
import { periodic } from './periodic.ts';
import { createAssistantSigner } from './signing/signer.ts';
import { createSigningKeyRepository } from './signing/signing-key-repository.ts';
import { createSigningKeys } from './signing/signing-keys.ts';
import { createDelegations } from './users/delegations.ts';
import { createUserRepository } from './users/repository.ts';
import { createUserService } from './users/service.ts';

const PURGE_INTERVAL_MS = 3600_000;

/**
 * Assistant-auth's one composition root: every repository, service, guard and worker, built once per app
 * (service.ts), demo seed or admin command. Routes receive what this returns and build nothing; the
 * workers are built here but started and stopped by the service plugin.
 */
export function composeAssistantAuth(core: Core) {
  const repositories = {
    users: createUserRepository(core.database),
    signingKeys: createSigningKeyRepository(core.database),
    callbackNonces: createCallbackNonceRepository(core.database),
  };
  const signer = createAssistantSigner(core, repositories.signingKeys);
  const users = createUserService(core, repositories.users);
  const { channel, directLine } = selectConversationChannel(core, signer);
  // Expired users past their retention go; a failure is logged and retried at the next interval.
  const userPurge = periodic(
    async () => {
      try {
        const removed = await users.purgeExpired();
        if (removed > 0)
          core.logger.info({ removed }, 'removed expired assistant users past their retention');
      } catch (error) {
        core.logger.warn({ err: error }, 'purging expired assistant users failed');
      }
    },
    PURGE_INTERVAL_MS,
    () => {},
  );
  return {
    core,
    repositories,
    access: createAccess(core.apiKeys),
    signingKeys: createSigningKeys(core, repositories.signingKeys),
    signer,
    users,
    delegations: createDelegations(core, users, signer),
    callbackParams: createCallbackParams(core, repositories.callbackNonces),
    channel,
    /** The embedded Direct Line channel, when the service runs it (no DIRECTLINE_URL). */
    directLine,
    userPurge,
  };
}

export type AssistantAuth = ReturnType<typeof composeAssistantAuth>;
