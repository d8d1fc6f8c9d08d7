import { randomBytes } from 'node:crypto';
import type { ActivityLimits } from './activity-limits.ts';
import type { AnsweringWorker } from './answering-worker.ts';
import {
  type Binding,
  type ChannelCredentials,
  type Credential,
  newConversationId,
  newUserId,
} from './credentials.ts';
import { directLineErrors } from './errors.ts';
import type { ChannelLinks } from './links.ts';
import type { ChannelMetrics } from './metrics.ts';
import type { StoredFile } from './next-activity.ts';
import type { ConversationRow, DirectLineRepository } from './repository.ts';
import type { ActivityInput, ConversationStartBody, StartBody } from './schemas.ts';
import type { StreamHub } from './stream-hub.ts';
import type { Upload } from './upload.ts';

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
  links: ChannelLinks;
  /** Answers the stored messages that ask the agent, in the background. */
  answering: AnsweringWorker;
  speakers: Speakers;
  metrics: Pick<ChannelMetrics, 'conversationStarted' | 'activityReceived'>;
  /** What a conversation, and the channel, may take (docs/limits.md). */
  limits: ActivityLimits;
}

/** Whether a conversation bound to an assistant user may still speak for its person (users/service.ts). */
export interface Speakers {
  speaksFor(assistantId: string): Promise<boolean>;
}

const NO_LONGER_SPEAKS =
  'The person this conversation spoke for has signed out or is no longer linked; sign in again for a new conversation.';

const parseWatermark = (watermark: string | undefined) => (watermark ? Number(watermark) : undefined);

/** A new conversation for the user the body names, else a new user. */
const newBinding = (body: StartBody | ConversationStartBody): Binding => ({
  conversationId: newConversationId(),
  userId: body?.user?.id ?? newUserId(),
});

/** The rules of the embedded channel: who may do what to which conversation. */
export function createConversationService({
  repository,
  credentials,
  hub,
  links,
  answering,
  speakers,
  metrics,
  limits,
}: Dependencies) {
  /** Stores a conversation (see the repository's `start`), counting it when it is new. */
  async function startConversation(conversationId: string, userId: string, speaker?: string) {
    await limits.admitConversation();
    const stored = await repository.start(conversationId, userId, Date.now(), speaker);
    if (stored === true) metrics.conversationStarted();
    return stored;
  }

  /**
   * A conversation that speaks for a person gets no new token once they signed out, were unlinked or
   * removed (the row's speaker is then null): asked at each renewal, so it holds in every process.
   */
  async function ensureStillSpeaks(row: ConversationRow | undefined): Promise<void> {
    const speaker = row?.assistantId;
    if (speaker && (await speakers.speaksFor(speaker))) return;
    throw directLineErrors.DIRECTLINE_CREDENTIALS_INVALID(NO_LONGER_SPEAKS);
  }

  /** Whether the caller's token, or the conversation itself, speaks for a person. */
  const speaksForSomeone = (credential: Credential, row: ConversationRow) =>
    row.assistantId !== null || (credential.kind === 'token' && credential.speaks === true);

  async function conversationAnswer(row: ConversationRow, afterSeq?: number): Promise<ConversationAnswer> {
    const binding: Binding = {
      conversationId: row.id,
      userId: row.userId,
      ...(row.assistantId === null ? {} : { speaks: true as const }),
    };
    const issued = await credentials.issueToken(binding);
    const ticket = await credentials.issueStreamTicket(binding);
    return { conversationId: row.id, ...issued, streamUrl: links.stream(row.id, ticket, afterSeq) };
  }

  async function conversationFor(credential: Credential, conversationId: string): Promise<ConversationRow> {
    if (credential.kind === 'token' && credential.conversationId !== conversationId) {
      throw directLineErrors.DIRECTLINE_CONVERSATION_MISMATCH();
    }
    const row = await repository.find(conversationId);
    if (!row) throw directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND();
    return row;
  }

  return {
    /** tokens/generate: a token for a new conversation (started by its first `POST /conversations`). */
    async generate(credential: Credential, body: StartBody): Promise<TokenAnswer> {
      if (credential.kind !== 'secret') throw directLineErrors.DIRECTLINE_SECRET_REQUIRED();
      const binding = newBinding(body);
      return { conversationId: binding.conversationId, ...(await credentials.issueToken(binding)) };
    },

    /**
     * /token for a person (never a Direct Line route): the conversation is stored at once with its
     * speaker, so its first `POST /conversations` finds it (200) and no request can bind it otherwise.
     * Undefined when the speaker was removed meanwhile.
     */
    async generateFor(speaker: string, body: StartBody): Promise<TokenAnswer | undefined> {
      const binding = newBinding(body);
      const stored = await startConversation(binding.conversationId, binding.userId, speaker);
      if (stored === 'speaker-gone') return undefined;
      const issued = await credentials.issueToken({ ...binding, speaks: true });
      return { conversationId: binding.conversationId, ...issued };
    },

    /** /token/wss for a person (never a Direct Line route): a new conversation bound to its speaker. */
    async startFor(speaker: string, body: StartBody): Promise<ConversationAnswer | undefined> {
      const { conversationId, userId } = newBinding(body);
      const stored = await startConversation(conversationId, userId, speaker);
      if (stored === 'speaker-gone') return undefined;
      return conversationAnswer({ id: conversationId, userId, lastSeq: 0, assistantId: speaker });
    },

    async refresh(credential: Credential): Promise<TokenAnswer> {
      if (credential.kind !== 'token') throw directLineErrors.DIRECTLINE_TOKEN_REQUIRED();
      const { conversationId, userId, speaks } = credential;
      if (speaks) await ensureStillSpeaks(await repository.find(conversationId));
      return { conversationId, ...(await credentials.issueToken({ conversationId, userId, speaks })) };
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
          : newBinding(body);
      // No speaker: only /token or /token/wss bind. A token's started conversation is not counted again.
      const known = credential.kind === 'token' && (await repository.find(binding.conversationId));
      const created = !known && (await startConversation(binding.conversationId, binding.userId)) === true;
      const row = await conversationFor(credential, binding.conversationId);
      if (speaksForSomeone(credential, row)) await ensureStillSpeaks(row);
      // The streamUrl of a start replays the conversation from its beginning.
      return { created, answer: await conversationAnswer(row) };
    },

    /** GET /conversations/{id}: a fresh token and streamUrl; without a watermark only what comes next. */
    async reconnect(credential: Credential, conversationId: string, watermark?: string) {
      const row = await conversationFor(credential, conversationId);
      if (speaksForSomeone(credential, row)) await ensureStillSpeaks(row);
      return conversationAnswer(row, parseWatermark(watermark) ?? row.lastSeq);
    },

    /** `requestId`: the POST's, which the answer's log lines and agent call carry. */
    async post(
      credential: Credential,
      conversationId: string,
      input: ActivityInput,
      requestId?: string,
    ): Promise<{ id: string }> {
      const row = await conversationFor(credential, conversationId);
      // Direct Line delivers typing only over the stream and never stores it; nobody else listens here.
      if (input.type === 'typing') return { id: `${row.id}|typing-${randomBytes(4).toString('hex')}` };
      const now = Date.now();
      await limits.admitActivity(now);
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
        asksAgent ? answering.claim() : undefined,
        undefined,
        undefined,
        limits.budget,
      );
      metrics.activityReceived(activity.type);
      hub.notify(row.id);
      if (asksAgent) answering.enqueue(row, activity, seq, requestId);
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
    async upload(
      credential: Credential,
      conversationId: string,
      upload: Upload,
      requestId?: string,
    ): Promise<{ id: string }> {
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
      await limits.admitActivity(now);
      const { seq, activity } = await repository.append(
        row.id,
        now,
        (id) => ({
          ...input,
          type: 'message',
          attachments: files.map((file) => ({
            contentType: file.contentType,
            contentUrl: links.file(row.id, file.id),
            name: file.name,
            size: file.size,
          })),
          id,
          timestamp: new Date(now).toISOString(),
          channelId: 'directline',
          conversation: { id: row.id },
          from: { ...input.from, id: row.userId, role: 'user' },
        }),
        answering.claim(),
        files,
        undefined,
        limits.budget,
      );
      metrics.activityReceived(activity.type);
      hub.notify(row.id);
      answering.enqueue(row, activity, seq, requestId);
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
  };
}

export type ConversationService = ReturnType<typeof createConversationService>;
