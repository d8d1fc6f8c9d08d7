import type { Core } from '../../core/core.ts';
import type { ConversationChannel } from '../channel/conversation-channel.ts';
import { periodic } from '../periodic.ts';
import type { AssistantSigner } from '../signing/signer.ts';
import { createAgentClient } from './agent-client.ts';
import { type ConversationService, createConversationService } from './conversation-service.ts';
import { type ChannelCredentials, createChannelCredentials } from './credentials.ts';
import { createDirectLineRepository } from './repository.ts';
import { createStreamHub, type StreamHub } from './stream-hub.ts';

const HOUR_MS = 3600_000;
/** How often to look for messages whose answering process died (their claim ran out). */
const RECOVERY_SWEEP_MS = 15_000;

/** The family's own Direct Line 3.0 channel: its channel side, what its routes use, and its workers. */
export interface EmbeddedDirectLine {
  /** What /token and /token/wss hand out when DIRECTLINE_URL is not set. */
  channel: ConversationChannel;
  credentials: ChannelCredentials;
  conversations: ConversationService;
  hub: StreamHub;
  /** Removes idle conversations, answers what a stopped process left pending, starts the stream hub. */
  start(): Promise<void>;
  /** Stops the workers, closes the streams and waits for the agent calls under way. */
  stop(): Promise<void>;
}

export function createEmbeddedDirectLine(core: Core, signer: AssistantSigner): EmbeddedDirectLine {
  const repository = createDirectLineRepository(core.database);
  const credentials = createChannelCredentials(core);
  const hub = createStreamHub(repository, core.logger.child({ component: 'directline-stream' }), {
    keepAliveMs: core.config.DIRECTLINE_KEEPALIVE_MS,
    events: core.events,
  });
  const agents = createAgentClient(core, signer);
  const conversations = createConversationService(core, { repository, credentials, hub, agents });
  const asChannel = { kind: 'secret' } as const;
  const start = (userId: string | undefined) => ({ user: userId ? { id: userId } : undefined });

  const purge = periodic(
    async () => {
      const retentionMs = core.config.CHANNEL_RETENTION * 1000;
      if (retentionMs === 0) return;
      const removed = await repository.purgeIdleBefore(Date.now() - retentionMs);
      if (removed > 0) core.logger.info({ removed }, 'directline: removed idle conversations');
    },
    Math.min(HOUR_MS, Math.max(60_000, core.config.CHANNEL_RETENTION * 1000)),
    (error) => core.logger.warn({ err: error }, 'directline purge failed'),
  );
  const recovery = periodic(
    async () => {
      const taken = await conversations.recoverAbandoned();
      if (taken > 0)
        core.logger.warn({ taken }, 'directline: answering messages a stopped process left pending');
    },
    RECOVERY_SWEEP_MS,
    (error) => core.logger.warn({ err: error }, 'directline recovery failed'),
  );

  return {
    channel: {
      kind: 'embedded',
      token: (options) => conversations.generate(asChannel, start(options.userId)),
      async streamToken(options) {
        const { answer } = await conversations.start(asChannel, start(options.userId));
        return { ...answer };
      },
    },
    credentials,
    conversations,
    hub,
    async start() {
      hub.start();
      await purge.start();
      await recovery.start();
    },
    async stop() {
      purge.stop();
      recovery.stop();
      hub.close();
      await conversations.drain();
    },
  };
}
