import fastifyWebsocket from '@fastify/websocket';
import type { Core } from '../../core/core.ts';
import type { App } from '../../core/http/service-app.ts';
import type { EmbeddedConversationChannel } from '../channel/conversation-channel.ts';
import type { AssistantSigner } from '../signing/signer.ts';
import { createAgentClient } from './agent-client.ts';
import { createConversationService } from './conversation-service.ts';
import { createChannelCredentials } from './credentials.ts';
import { directLineRepository } from './repository.ts';
import { registerDirectLineRoutes } from './routes.ts';
import { createStreamHub } from './stream-hub.ts';

const HOUR_MS = 3600_000;
/** How often to look for messages whose answering process died (their claim ran out). */
const RECOVERY_SWEEP_MS = 15_000;

/**
 * The family's own Direct Line 3.0 channel: what /token and /token/wss hand out when DIRECTLINE_URL is
 * not set, and the `/v3/directline/…` routes and stream those tokens work against.
 */
export function createEmbeddedChannel(core: Core, signer: AssistantSigner): EmbeddedConversationChannel {
  const repository = directLineRepository(core);
  const credentials = createChannelCredentials(core);
  const hub = createStreamHub(repository, core.logger.child({ component: 'directline-stream' }), {
    keepAliveMs: core.config.DIRECTLINE_KEEPALIVE_MS,
    pollMs: 1000,
  });
  const agents = createAgentClient(core, signer);
  const conversations = createConversationService(core, { repository, credentials, hub, agents });
  const asChannel = { kind: 'secret' } as const;

  async function recover(): Promise<void> {
    const taken = await conversations.recoverAbandoned();
    if (taken > 0)
      core.logger.warn({ taken }, 'directline: answering messages a stopped process left pending');
  }

  async function purge(): Promise<void> {
    const retentionMs = core.config.CHANNEL_RETENTION * 1000;
    if (retentionMs === 0) return;
    const removed = await repository.purgeIdleBefore(Date.now() - retentionMs);
    if (removed > 0) core.logger.info({ removed }, 'directline: removed idle conversations');
  }

  return {
    kind: 'embedded',
    async token(options) {
      return conversations.generate(asChannel, { user: options.userId ? { id: options.userId } : undefined });
    },
    async streamToken(options) {
      const body = { user: options.userId ? { id: options.userId } : undefined };
      const { answer } = await conversations.start(asChannel, body);
      return { ...answer };
    },
    async registerRoutes(app: App) {
      await app.register(fastifyWebsocket, { options: { maxPayload: core.config.BODY_LIMIT } });
      await registerDirectLineRoutes(app, { credentials, conversations, hub });
      await purge();
      await recover();
      const sweep = setInterval(
        () =>
          void recover().catch((error: unknown) =>
            core.logger.warn({ err: error }, 'directline recovery failed'),
          ),
        RECOVERY_SWEEP_MS,
      );
      sweep.unref();
      const retention = setInterval(
        () =>
          void purge().catch((error: unknown) => core.logger.warn({ err: error }, 'directline purge failed')),
        Math.min(HOUR_MS, Math.max(60_000, core.config.CHANNEL_RETENTION * 1000)),
      );
      retention.unref();
      app.addHook('onClose', async () => {
        clearInterval(retention);
        clearInterval(sweep);
        hub.close();
        await conversations.drain();
      });
    },
  };
}
