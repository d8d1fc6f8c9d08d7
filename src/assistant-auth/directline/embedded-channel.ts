import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../../core/config.ts';
import type { EventBus } from '../../core/events/event-bus.ts';
import type { StoreCounter } from '../../core/limits/store-counter.ts';
import { periodic } from '../../core/periodic.ts';
import type { ConversationChannel } from '../channel/conversation-channel.ts';
import { type ActivityLimitSettings, type ChannelLimit, createActivityLimits } from './activity-limits.ts';
import type { AgentClient } from './agent-client.ts';
import type { AnswerClaimRepository } from './answer-claims.ts';
import { createAnsweringWorker } from './answering-worker.ts';
import {
  type ConversationService,
  createConversationService,
  type Speakers,
} from './conversation-service.ts';
import type { ChannelCredentials } from './credentials.ts';
import { createChannelLinks } from './links.ts';
import { createChannelMetrics } from './metrics.ts';
import type { DirectLineRepository } from './repository.ts';
import { createStreamHub, type StreamHub } from './stream-hub.ts';
import { createStreamOrigins, type StreamOrigins } from './stream-origins.ts';
import {
  createUploadQuota,
  type UploadLimit,
  type UploadQuota,
  type UploadQuotaSettings,
  withUploadQuota,
} from './upload-quota.ts';

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
  /** What conversations, tokens and the store may hold of uploads beyond one upload's size. */
  uploads: UploadQuota;
  /** The pages that may open a stream (DIRECTLINE_ALLOWED_ORIGINS and the service's own origin). */
  streamOrigins: StreamOrigins;
  /**
   * The assistant user a conversation speaks for: null when anonymous or once that user was removed,
   * undefined when there is no such conversation.
   */
  speakerOf(conversationId: string): Promise<string | null | undefined>;
  /** Removes idle conversations, answers what a stopped process left pending, starts the stream hub. */
  start(): Promise<void>;
  /** Stops the workers, closes the streams and waits for the agent calls under way. */
  stop(): Promise<void>;
}

interface EmbeddedDirectLineDependencies {
  settings: Pick<
    Config,
    'CHANNEL_RETENTION' | 'DIRECTLINE_KEEPALIVE_MS' | 'DIRECTLINE_ALLOWED_ORIGINS' | 'DIRECTLINE_STREAMS'
  > &
    UploadQuotaSettings &
    ActivityLimitSettings;
  conversationRepository: DirectLineRepository;
  claimRepository: AnswerClaimRepository;
  credentials: ChannelCredentials;
  agents: AgentClient;
  /** Whether a bound conversation may still speak for its person: its tokens are renewed only then. */
  speakers: Speakers;
  /** How every process learns that a conversation has something new for its stream. */
  events: EventBus;
  logger: Logger;
  /** The service's public address (PUBLIC_BASE_URL or where it listens), read per call. */
  address: () => string;
  /** The service's /metrics, where the channel adds its own. */
  registry: Registry;
  /** Where the limits shared by every process are counted (docs/limits.md). */
  counter: StoreCounter;
  /** Counts a refusal at one of the channel's limits in /metrics. */
  refused: (limit: ChannelLimit | UploadLimit) => void;
}

export function createEmbeddedDirectLine({
  settings,
  conversationRepository: repository,
  claimRepository,
  credentials,
  agents,
  speakers,
  events,
  logger,
  address,
  registry,
  counter,
  refused,
}: EmbeddedDirectLineDependencies): EmbeddedDirectLine {
  const hub = createStreamHub(repository, logger.child({ component: 'directline-stream' }), {
    keepAliveMs: settings.DIRECTLINE_KEEPALIVE_MS,
    events,
    maxStreams: settings.DIRECTLINE_STREAMS,
    refused: () => refused('directline_streams'),
  });
  const metrics = createChannelMetrics(registry, () => hub.open);
  const links = createChannelLinks(address, credentials.fileSignature);
  const answering = createAnsweringWorker({
    metrics,
    claims: claimRepository,
    hub,
    agents,
    links,
    logger: logger.child({ component: 'directline' }),
  });
  const retentionMs = settings.CHANNEL_RETENTION * 1000;
  // Without retention only the files of conversations removed otherwise go, and nothing is in a hurry.
  const purgeEveryMs = retentionMs === 0 ? HOUR_MS : Math.min(HOUR_MS, Math.max(60_000, retentionMs));
  const uploads = createUploadQuota(settings, repository, purgeEveryMs / 1000, refused);
  const conversations = createConversationService({
    repository: withUploadQuota(repository, uploads),
    credentials,
    hub,
    links,
    answering,
    speakers,
    metrics,
    limits: createActivityLimits(settings, counter, refused),
  });
  const asChannel = { kind: 'secret' } as const;
  const start = (userId: string | undefined) => ({ user: userId ? { id: userId } : undefined });

  const purge = periodic(
    async () => {
      if (retentionMs === 0) return repository.purgeOrphans();
      const removed = await repository.purgeIdleBefore(Date.now() - retentionMs);
      if (removed > 0) logger.info({ removed }, 'directline: removed idle conversations');
    },
    purgeEveryMs,
    (error) => logger.warn({ err: error }, 'directline purge failed'),
  );
  const recovery = periodic(
    async () => {
      const taken = await answering.recoverAbandoned();
      if (taken > 0) logger.warn({ taken }, 'directline: answering messages a stopped process left pending');
    },
    RECOVERY_SWEEP_MS,
    (error) => logger.warn({ err: error }, 'directline recovery failed'),
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
    uploads,
    streamOrigins: createStreamOrigins(settings.DIRECTLINE_ALLOWED_ORIGINS, address),
    async speakerOf(conversationId) {
      return (await repository.find(conversationId))?.assistantId;
    },
    async start() {
      hub.start();
      await purge.start();
      await recovery.start();
    },
    async stop() {
      purge.stop();
      recovery.stop();
      hub.close();
      await answering.drain();
    },
  };
}
