import { randomBytes } from 'node:crypto';
import type { Core } from '../../core/core.ts';
import { errorBody } from '../../core/errors.ts';
import type { AgentClient, AgentOutcome, TurnFile } from './agent-client.ts';
import {
  type Binding,
  type ChannelCredentials,
  type Credential,
  newConversationId,
  newUserId,
} from './credentials.ts';
import { directLineErrors } from './errors.ts';
import type { ConversationRow, DirectLineRepository, StoredFile } from './repository.ts';
import type { Activity, ActivityInput, ConversationStartBody, StartBody } from './schemas.ts';
import type { StreamHub } from './stream-hub.ts';
import type { Upload } from './upload.ts';

/** The assistant as a Direct Line participant. */
export const BOT_ACCOUNT = { id: 'sintonia-assistant', name: 'Sintonia', role: 'bot' };
const TYPING_REPEAT_MS = 3000;
const PAGE = 100;

export interface TokenAnswer {
  conversationId: string;
  token: string;
  expires_in: number;
}
export interface ConversationAnswer extends TokenAnswer {
  streamUrl: string;
}

interface Dependencies {
  repository: DirectLineRepository;
  credentials: ChannelCredentials;
  hub: StreamHub;
  agents: AgentClient;
}

const parseWatermark = (watermark: string | undefined) => (watermark ? Number(watermark) : undefined);

/** The rules of the embedded channel: who may do what to which conversation, and the bridge to the agent. */
export function createConversationService(
  core: Core,
  { repository, credentials, hub, agents }: Dependencies,
) {
  const logger = core.logger.child({ component: 'directline' });
  /** One agent call at a time per conversation, so answers come in the order of the questions. */
  const queues = new Map<string, Promise<void>>();

  const publicBase = () =>
    (core.config.PUBLIC_BASE_URL ?? core.serviceUrl('assistant-auth')).replace(/\/+$/, '');

  function streamUrl(conversationId: string, ticket: string, afterSeq: number | undefined): string {
    const query = new URLSearchParams({ t: ticket });
    if (afterSeq !== undefined) query.set('watermark', String(afterSeq));
    return `${publicBase().replace(/^http/, 'ws')}/v3/directline/conversations/${conversationId}/stream?${query}`;
  }

  /** Where an uploaded file is served: signed, so a browser's <img src> needs no Authorization header. */
  const filesPath = (conversationId: string) => `/v3/directline/conversations/${conversationId}/files/`;
  function contentUrl(conversationId: string, fileId: string): string {
    const t = credentials.fileSignature(conversationId, fileId);
    return `${publicBase()}${filesPath(conversationId)}${fileId}?t=${t}`;
  }

  /** The files of a stored message the agent should hear of: those uploaded to this conversation. */
  function turnFiles(message: Activity): TurnFile[] {
    const prefix = `${publicBase()}${filesPath(message.conversation.id)}`;
    return (message.attachments ?? []).flatMap((attachment) => {
      const { name, contentType, contentUrl: url, size } = attachment;
      return typeof url === 'string' &&
        url.startsWith(prefix) &&
        typeof name === 'string' &&
        typeof contentType === 'string' &&
        typeof size === 'number'
        ? [{ name, contentType, size, contentUrl: url }]
        : [];
    });
  }

  async function conversationAnswer(row: ConversationRow, afterSeq?: number): Promise<ConversationAnswer> {
    const binding: Binding = { conversationId: row.id, userId: row.userId };
    const issued = await credentials.issueToken(binding);
    const ticket = await credentials.issueStreamTicket(binding);
    return { conversationId: row.id, ...issued, streamUrl: streamUrl(row.id, ticket, afterSeq) };
  }

  async function conversationFor(credential: Credential, conversationId: string): Promise<ConversationRow> {
    if (credential.kind === 'token' && credential.conversationId !== conversationId) {
      throw directLineErrors.DIRECTLINE_CONVERSATION_MISMATCH();
    }
    const row = await repository.find(conversationId);
    if (!row) throw directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND();
    return row;
  }

  function replyFrom(
    outcome: AgentOutcome,
  ): Pick<Activity, 'type' | 'text' | 'value' | 'channelData' | 'suggestedActions' | 'attachments'> {
    if (outcome.ok) {
      const { output, suggestedActions, attachments } = outcome;
      return {
        type: 'message',
        text: output,
        ...(suggestedActions ? { suggestedActions } : {}),
        ...(attachments ? { attachments } : {}),
      };
    }
    return {
      type: 'message',
      text: `The assistant could not answer: ${outcome.body.message}`,
      // The family error body as the agents server (or we, for a failed call) said it.
      value: outcome.body,
      channelData: {
        error: { status: outcome.status, ...(outcome.retryAfter ? { retryAfter: outcome.retryAfter } : {}) },
      },
    };
  }

  /** How long a process holds a pending message: twice its agent call's timeout, then others take it over. */
  const claimMs = 2 * agents.timeoutMs;
  /** This channel instance, as the holder of its claims. */
  const owner = randomBytes(9).toString('base64url');
  const claim = () => ({ by: owner, until: Date.now() + claimMs });

  /** What answering a message needs of its conversation: who wrote it and whom it speaks for. */
  type Speaking = Pick<ConversationRow, 'id' | 'userId' | 'assistantId'>;

  async function answerMessage(row: Speaking, message: Activity, seq: number): Promise<void> {
    await repository.renewClaims(row.id, claim());
    const typing = () =>
      hub.sendEphemeral(row.id, {
        type: 'typing',
        id: `${row.id}|typing-${randomBytes(4).toString('hex')}`,
        timestamp: new Date().toISOString(),
        channelId: 'directline',
        conversation: { id: row.id },
        from: BOT_ACCOUNT,
        replyToId: message.id,
      });
    typing();
    const repeat = setInterval(typing, TYPING_REPEAT_MS);
    try {
      const files = turnFiles(message);
      const outcome = await agents
        .invoke({
          // A message of files alone is heard as their names: the agents' input is never empty.
          input: message.text?.trim() || files.map((file) => file.name).join(', '),
          conversationId: row.id,
          userId: row.userId,
          assistantId: row.assistantId,
          ...(message.locale ? { locale: message.locale } : {}),
          ...(files.length > 0 ? { attachments: files } : {}),
        })
        .catch((error: unknown): AgentOutcome => {
          logger.error({ err: error, conversationId: row.id }, 'calling the agent failed unexpectedly');
          return {
            ok: false,
            status: 500,
            body: errorBody(500, 'INTERNAL_ERROR', 'An unexpected error occurred.'),
          };
        });
      const now = Date.now();
      const stored = await repository.appendAnswer(
        row.id,
        now,
        (id) => ({
          ...replyFrom(outcome),
          id,
          timestamp: new Date(now).toISOString(),
          channelId: 'directline',
          conversation: { id: row.id },
          from: BOT_ACCOUNT,
          replyToId: message.id,
        }),
        { seq, by: owner },
      );
      if (stored) hub.notify(row.id);
      else
        logger.warn({ conversationId: row.id }, 'another process took this message over; its answer stands');
    } finally {
      clearInterval(repeat);
    }
  }

  function enqueueAnswer(row: Speaking, message: Activity, seq: number): void {
    const previous = queues.get(row.id) ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(() => answerMessage(row, message, seq))
      .catch((error: unknown) => {
        logger.error({ err: error, conversationId: row.id }, 'could not store the agent’s answer');
      })
      .finally(() => {
        if (queues.get(row.id) === next) queues.delete(row.id);
      });
    queues.set(row.id, next);
  }

  return {
    /** tokens/generate: a token for a new conversation (started by its first `POST /conversations`). */
    async generate(credential: Credential, body: StartBody): Promise<TokenAnswer> {
      if (credential.kind !== 'secret') throw directLineErrors.DIRECTLINE_SECRET_REQUIRED();
      const binding = { conversationId: newConversationId(), userId: body?.user?.id ?? newUserId() };
      return { conversationId: binding.conversationId, ...(await credentials.issueToken(binding)) };
    },

    /**
     * /token for a person (never a Direct Line route): the conversation is stored at once with its
     * speaker, so its first `POST /conversations` finds it (200) and no request can bind it otherwise.
     * Undefined when the speaker was removed meanwhile.
     */
    async generateFor(speaker: string, body: StartBody): Promise<TokenAnswer | undefined> {
      const binding = { conversationId: newConversationId(), userId: body?.user?.id ?? newUserId() };
      const stored = await repository.start(binding.conversationId, binding.userId, Date.now(), speaker);
      if (stored === 'speaker-gone') return undefined;
      return { conversationId: binding.conversationId, ...(await credentials.issueToken(binding)) };
    },

    /** /token/wss for a person (never a Direct Line route): a new conversation bound to its speaker. */
    async startFor(speaker: string, body: StartBody): Promise<ConversationAnswer | undefined> {
      const conversationId = newConversationId();
      const userId = body?.user?.id ?? newUserId();
      const stored = await repository.start(conversationId, userId, Date.now(), speaker);
      if (stored === 'speaker-gone') return undefined;
      return conversationAnswer({ id: conversationId, userId, lastSeq: 0, assistantId: speaker });
    },

    async refresh(credential: Credential): Promise<TokenAnswer> {
      if (credential.kind !== 'token') throw directLineErrors.DIRECTLINE_TOKEN_REQUIRED();
      const { conversationId, userId } = credential;
      return { conversationId, ...(await credentials.issueToken({ conversationId, userId })) };
    },

    /**
     * POST /conversations: with the secret a new conversation; with a token, the token's (200 when
     * started), whatever user the body names: the token's user is the one it was issued to.
     */
    async start(
      credential: Credential,
      body: ConversationStartBody,
    ): Promise<{ created: boolean; answer: ConversationAnswer }> {
      const binding =
        credential.kind === 'token'
          ? { conversationId: credential.conversationId, userId: credential.userId }
          : { conversationId: newConversationId(), userId: body?.user?.id ?? newUserId() };
      // No speaker here: a conversation is bound by /token or /token/wss only, never through Direct Line.
      const created = (await repository.start(binding.conversationId, binding.userId, Date.now())) === true;
      const row = await conversationFor(credential, binding.conversationId);
      // The streamUrl of a start replays the conversation from its beginning.
      return { created, answer: await conversationAnswer(row) };
    },

    /** GET /conversations/{id}: a fresh token and streamUrl; without a watermark only what comes next. */
    async reconnect(credential: Credential, conversationId: string, watermark?: string) {
      const row = await conversationFor(credential, conversationId);
      return conversationAnswer(row, parseWatermark(watermark) ?? row.lastSeq);
    },

    async post(
      credential: Credential,
      conversationId: string,
      input: ActivityInput,
    ): Promise<{ id: string }> {
      const row = await conversationFor(credential, conversationId);
      // Direct Line delivers typing only over the stream and never stores it; nobody else listens here.
      if (input.type === 'typing') return { id: `${row.id}|typing-${randomBytes(4).toString('hex')}` };
      const now = Date.now();
      const asksAgent = input.type === 'message' && Boolean(input.text?.trim());
      const { seq, activity } = await repository.append(
        row.id,
        now,
        (id) => ({
          ...input,
          id,
          timestamp: new Date(now).toISOString(),
          channelId: 'directline',
          conversation: { id: row.id },
          from: { ...input.from, id: row.userId, role: 'user' },
        }),
        asksAgent ? claim() : undefined,
      );
      hub.notify(row.id);
      if (asksAgent) enqueueAnswer(row, activity, seq);
      return { id: activity.id };
    },

    /** Checks the caller may act on the conversation before an upload's body is read. */
    async authorize(credential: Credential, conversationId: string): Promise<void> {
      await conversationFor(credential, conversationId);
    },

    /**
     * POST /conversations/{id}/upload: stores the files and one message naming them (the `activity`
     * part's, its own attachments replaced), which the assistant agent answers like any message.
     */
    async upload(credential: Credential, conversationId: string, upload: Upload): Promise<{ id: string }> {
      const row = await conversationFor(credential, conversationId);
      const files: StoredFile[] = upload.files.map((file) => ({
        id: randomBytes(16).toString('base64url'),
        name: file.name,
        contentType: file.contentType,
        size: file.content.length,
        content: file.content,
      }));
      const input = upload.activity ?? { type: 'message' };
      const now = Date.now();
      const { seq, activity } = await repository.append(
        row.id,
        now,
        (id) => ({
          ...input,
          type: 'message',
          attachments: files.map((file) => ({
            contentType: file.contentType,
            contentUrl: contentUrl(row.id, file.id),
            name: file.name,
            size: file.size,
          })),
          id,
          timestamp: new Date(now).toISOString(),
          channelId: 'directline',
          conversation: { id: row.id },
          from: { ...input.from, id: row.userId, role: 'user' },
        }),
        claim(),
        files,
      );
      hub.notify(row.id);
      enqueueAnswer(row, activity, seq);
      return { id: activity.id };
    },

    /**
     * An uploaded file, for its conversation only: by the contentUrl's signature `t` (a browser's <img>
     * sends no Authorization header), or by the conversation's token or the secret.
     */
    async file(
      conversationId: string,
      fileId: string,
      access: { signature: string } | { credential: Credential },
    ): Promise<StoredFile> {
      if ('signature' in access) credentials.verifyFileSignature(conversationId, fileId, access.signature);
      else await conversationFor(access.credential, conversationId);
      const file = await repository.findFile(conversationId, fileId);
      if (!file) throw directLineErrors.DIRECTLINE_FILE_NOT_FOUND();
      return file;
    },

    async list(credential: Credential, conversationId: string, watermark?: string) {
      const row = await conversationFor(credential, conversationId);
      const after = parseWatermark(watermark) ?? 0;
      const page = await repository.listAfter(row.id, after, PAGE);
      return {
        activities: page.map((item) => item.activity),
        watermark: String(page.at(-1)?.seq ?? after),
      };
    },

    async ensureExists(conversationId: string): Promise<void> {
      if (!(await repository.find(conversationId)))
        throw directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND();
    },

    /** Answers the messages a dead process left pending (its claim ran out); returns how many. */
    async recoverAbandoned(): Promise<number> {
      const abandoned = await repository.claimAbandoned(Date.now(), claim(), 50);
      for (const { seq, activity, userId, assistantId } of abandoned) {
        enqueueAnswer({ id: activity.conversation.id, userId, assistantId }, activity, seq);
      }
      return abandoned.length;
    },

    /** Waits for the agent calls under way (on close). */
    async drain(): Promise<void> {
      await Promise.allSettled([...queues.values()]);
    },
  };
}

export type ConversationService = ReturnType<typeof createConversationService>;
