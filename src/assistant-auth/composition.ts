import { Registry } from 'prom-client';
import type { Config } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { coreRetentionRules, retentionJob } from '../core/db/retention.ts';
import { createStoreCounter } from '../core/limits/store-counter.ts';
import { createAccess } from './access.ts';
import type { Audit } from './audit.ts';
import { createCallbackParams, gatewayCallbackKey } from './callbacks/callback-param.ts';
import { createCallbackNonceRepository } from './callbacks/nonce-repository.ts';
import { selectConversationChannel } from './channel/select-channel.ts';
import { chatPageEnabled, chatPageSettings } from './chat-page/settings.ts';
import { createChatSignIn } from './chat-page/sign-in.ts';
import { createChatSignOut } from './chat-page/sign-out.ts';
import { createAgentClient } from './directline/agent-client.ts';
import { createAnswerClaimRepository } from './directline/answer-claims.ts';
import { channelKeys, createChannelCredentials } from './directline/credentials.ts';
import { createEmbeddedDirectLine } from './directline/embedded-channel.ts';
import { createDirectLineRepository } from './directline/repository.ts';
import { type AssistantSigner, createAssistantSigner } from './signing/signer.ts';
import { createSigningKeyRepository } from './signing/signing-key-repository.ts';
import { createSigningKeys, signingKeysSecret } from './signing/signing-keys.ts';
import { createDelegations } from './users/delegations.ts';
import { createUserRepository } from './users/repository.ts';
import { expiredUsersRule } from './users/retention.ts';
import { createUserService, type UserService, userKeys } from './users/service.ts';
import { createSignInSessions } from './users/sign-in-sessions.ts';

/** The configuration the routes read themselves (limits, addresses to print, what /config answers). */
type RouteSettings = Pick<
  Config,
  | 'BODY_LIMIT'
  | 'DIRECTLINE_UPLOAD_LIMIT'
  | 'CHAT_TOKEN_LIMIT'
  | 'REQUEST_LIMIT_WINDOW'
  | 'HOST'
  | 'ASSISTANT_AUTH_PORT'
  | 'PUBLIC_BASE_URL'
  | 'CLOUD_STORAGE_SUBDOMAIN'
>;

/** The embedded Direct Line channel, built only when the service runs it (no DIRECTLINE_URL). */
function composeDirectLine(
  core: Core,
  signer: AssistantSigner,
  users: UserService,
  address: () => string,
  registry: Registry,
) {
  const { config } = core;
  return createEmbeddedDirectLine({
    settings: config,
    conversationRepository: createDirectLineRepository(core.database),
    claimRepository: createAnswerClaimRepository(core.database),
    credentials: createChannelCredentials(channelKeys(core), config),
    agents: createAgentClient(config, {
      agentsUrl: () => config.AGENTS_URL ?? core.serviceUrl('agents'),
      signer,
      logger: core.logger,
    }),
    speakers: users,
    events: core.events,
    logger: core.logger,
    address,
    registry,
    counter: createStoreCounter(core.database),
    refused: (limit) => core.metrics.limitRefused(limit),
  });
}

/**
 * Assistant-auth's one composition root: every repository, service, guard and worker, built once per app
 * (service.ts), demo seed or admin command. Routes receive what this returns and build nothing; the
 * workers are built here but started and stopped by the service plugin.
 */
export function composeAssistantAuth(core: Core, registry: Registry = new Registry()) {
  const { config, logger } = core;
  /** PUBLIC_BASE_URL, else where the service listens: known only once it listens, so read per call. */
  const address = () => config.PUBLIC_BASE_URL ?? core.serviceUrl('assistant-auth');
  const audit: Audit = (actor, action, subject) => core.audit(actor, action, subject);
  const repositories = {
    users: createUserRepository(core.database),
    signingKeys: createSigningKeyRepository(core.database),
    callbackNonces: createCallbackNonceRepository(core.database),
  };
  const signer = createAssistantSigner(core, repositories.signingKeys);
  const clientApiUrl = () => `${core.serviceUrl('client-api')}${config.CLIENT_API_BASE_PATH}`;
  const signIns = createSignInSessions(config, { signer, clientApiUrl });
  const users = createUserService(config, {
    repository: repositories.users,
    keys: userKeys(core),
    audit,
    signIns,
  });
  const { channel, directLine } = selectConversationChannel(config, () =>
    composeDirectLine(core, signer, users, address, registry),
  );
  const settings: RouteSettings = config;
  return {
    settings,
    logger,
    audit,
    address,
    access: createAccess(core.apiKeys),
    signingKeys: createSigningKeys(config, {
      repository: repositories.signingKeys,
      sealingKey: signingKeysSecret(core),
    }),
    signer,
    users,
    delegations: createDelegations(config, { users, signer, audit }),
    callbackParams: createCallbackParams(
      { key: gatewayCallbackKey(core), nonceKey: core.key('callback-nonce') },
      repositories.callbackNonces,
    ),
    channel,
    /** The embedded Direct Line channel, when the service runs it (no DIRECTLINE_URL). */
    directLine,
    /** The chat page (CHAT_PAGE), when the service serves it. */
    chatPage: chatPageEnabled(core)
      ? {
          /** Read per request: the service's own address is known only once it listens. */
          settings: () => chatPageSettings(config, address),
          signIn: createChatSignIn(config, {
            clientApiUrl,
            users,
            audit,
          }),
          signOut: createChatSignOut({ directLine, users, signIns, audit }),
          /** Counts a token refused past CHAT_TOKEN_LIMIT in /metrics. */
          refused: () => core.metrics.limitRefused('chat_token_per_address'),
        }
      : undefined,
    /**
     * Expired assistant users past ASSISTANT_USER_RETENTION, and the audit log (the same rule client-api's
     * job runs: either service may run alone), in batches.
     */
    retention: retentionJob(
      core.database,
      [...coreRetentionRules(config), expiredUsersRule(config)],
      config,
      logger.child({ component: 'retention' }),
    ),
  };
}

export type AssistantAuth = ReturnType<typeof composeAssistantAuth>;
