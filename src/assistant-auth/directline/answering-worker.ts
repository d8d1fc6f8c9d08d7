import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { type ErrorBody, errorBody } from '../../core/errors.ts';
import type { AgentClient, TurnFile } from './agent-client.ts';
import type { AgentOutcome } from './agent-outcome.ts';
import type { AnswerClaimRepository } from './answer-claims.ts';
import type { ChannelLinks } from './links.ts';
import type { ChannelMetrics } from './metrics.ts';
import type { Claim } from './next-activity.ts';
import type { ConversationRow } from './repository.ts';
import type { Activity } from './schemas.ts';
import type { StreamHub } from './stream-hub.ts';

/** The assistant as a Direct Line participant. */
const BOT_ACCOUNT = { id: 'sintonia-assistant', name: 'Sintonia', role: 'bot' };
const TYPING_REPEAT_MS = 3000;
/** How often an answer under way is shown as it grows (Web Chat's livestreaming). */
const LIVESTREAM_INTERVAL_MS = 200;
/** How many abandoned messages one recovery sweep takes over. */
const RECOVERY_BATCH = 50;

/** What answering a message needs of its conversation: who wrote it and whom it speaks for. */
type Speaking = Pick<ConversationRow, 'id' | 'userId' | 'assistantId'>;

export interface AnsweringWorker {
  /** A hold for this process on a message it stores pending and will answer. */
  claim(): Claim;
  /**
   * Queues the agent call for a stored pending message behind the conversation's earlier ones. `requestId`
   * (the request that brought the message) goes on the answer's log lines and with the agent call.
   */
  enqueue(row: Speaking, message: Activity, seq: number, requestId?: string): void;
  /** Answers the messages a dead process left pending (its claim ran out); returns how many. */
  recoverAbandoned(): Promise<number>;
  /** Waits for the agent calls under way (on close). */
  drain(): Promise<void>;
}

interface Dependencies {
  metrics: Pick<ChannelMetrics, 'answered'>;
  claims: AnswerClaimRepository;
  hub: StreamHub;
  agents: AgentClient;
  links: ChannelLinks;
  logger: Logger;
}

const isConfigError = (body: ErrorBody) => body.errors?.[0]?.type === 'AGENT_CONFIG_ERROR';

/**
 * What the person reads when the agent did not answer. At a limit (429, ours or the model's) they are
 * told plainly to wait and when to send again, not the agent's technical message.
 */
function failureText(outcome: { status: number; body: ErrorBody; retryAfter?: string }) {
  // The deployment's fault, whose message is for its operator (it names their settings): logged at error.
  if (isConfigError(outcome.body)) return 'The assistant is not available right now. Please try again later.';
  if (outcome.status !== 429) return `The assistant could not answer: ${outcome.body.message}`;
  const seconds = Number(outcome.retryAfter);
  const when = Number.isInteger(seconds) && seconds > 0 ? `${seconds} seconds` : 'a moment';
  return `The assistant is getting more messages than it can answer right now. Please wait ${when} and send your message again.`;
}

function replyFrom(
  outcome: AgentOutcome,
): Pick<
  Activity,
  'type' | 'text' | 'textFormat' | 'value' | 'channelData' | 'suggestedActions' | 'attachments'
> {
  if (outcome.ok) {
    const { output, textFormat, suggestedActions, attachments } = outcome;
    return {
      type: 'message',
      text: output,
      textFormat,
      ...(suggestedActions ? { suggestedActions } : {}),
      ...(attachments ? { attachments } : {}),
    };
  }
  return {
    type: 'message',
    text: failureText(outcome),
    // The message may quote what the agent or the person wrote.
    textFormat: 'plain',
    // The family error body as the agents server (or we, for a failed call) said it; a configuration
    // error's type only, with the catalogue's message (its own names the operator's settings).
    value: isConfigError(outcome.body)
      ? errorBody(400, 'AGENT_CONFIG_ERROR', 'Agent configuration error.')
      : outcome.body,
    channelData: {
      error: { status: outcome.status, ...(outcome.retryAfter ? { retryAfter: outcome.retryAfter } : {}) },
    },
  };
}

/**
 * Answers the stored user messages in the background: one agent call at a time per conversation, so
 * answers come in the order of the questions; typing shown while it waits; each message held under a
 * claim that another process takes over when this one dies.
 */
export function createAnsweringWorker({
  metrics,
  claims,
  hub,
  agents,
  links,
  logger,
}: Dependencies): AnsweringWorker {
  const queues = new Map<string, Promise<void>>();
  /** How long a process holds a pending message: twice its agent call's timeout, then others take it over. */
  const claimMs = 2 * agents.timeoutMs;
  /** This channel instance, as the holder of its claims. */
  const owner = randomBytes(9).toString('base64url');
  const claim = () => ({ by: owner, until: Date.now() + claimMs });

  /** The files of a stored message the agent should hear of: those uploaded to this conversation. */
  function turnFiles(message: Activity): TurnFile[] {
    const prefix = links.filesOf(message.conversation.id);
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

  async function answerMessage(
    row: Speaking,
    message: Activity,
    seq: number,
    log: Logger,
    requestId: string | undefined,
  ): Promise<void> {
    await claims.renewClaims(row.id, claim());
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
    const live = livestream(row.id, message.id, () => clearInterval(repeat));
    try {
      const files = turnFiles(message);
      const outcome = await agents
        .stream(
          {
            // A message of files alone is heard as their names: the agents' input is never empty.
            input: message.text?.trim() || files.map((file) => file.name).join(', '),
            conversationId: row.id,
            userId: row.userId,
            assistantId: row.assistantId,
            ...(message.locale ? { locale: message.locale } : {}),
            ...(files.length > 0 ? { attachments: files } : {}),
            ...(requestId ? { requestId } : {}),
          },
          live.update,
        )
        .catch((error: unknown): AgentOutcome => {
          log.error({ err: error, conversationId: row.id }, 'calling the agent failed unexpectedly');
          return {
            ok: false,
            status: 500,
            body: errorBody(500, 'INTERNAL_ERROR', 'An unexpected error occurred.'),
          };
        });
      if (!outcome.ok && isConfigError(outcome.body))
        log.error(
          { conversationId: row.id, error: outcome.body },
          `the assistant cannot answer: ${outcome.body.message}`,
        );
      const now = Date.now();
      const stored = await claims.appendAnswer(
        row.id,
        now,
        (id) => ({
          ...live.conclude(replyFrom(outcome)),
          id,
          timestamp: new Date(now).toISOString(),
          channelId: 'directline',
          conversation: { id: row.id },
          from: BOT_ACCOUNT,
          replyToId: message.id,
        }),
        { seq, by: owner },
      );
      if (stored) {
        hub.notify(row.id);
        metrics.answered(outcome.ok, (now - Date.parse(message.timestamp)) / 1000);
      } else
        log.warn({ conversationId: row.id }, 'another process took this message over; its answer stands');
    } finally {
      clearInterval(repeat);
      live.stop();
    }
  }

  /**
   * Web Chat's livestreaming of an answer under way: at most every LIVESTREAM_INTERVAL_MS, a typing
   * activity with the text so far (streamType `streaming`, the first one's id as the stream's id), sent
   * to the conversation's open streams only, never stored; the stored answer then concludes the stream
   * (streamType `final`). An answer complete within the first interval is one message, as before.
   */
  function livestream(conversationId: string, replyToId: string | undefined, started: () => void) {
    let streamId: string | undefined;
    let sequence = 0;
    let latest = '';
    let shown = '';
    let timer: NodeJS.Timeout | undefined;
    const send = () => {
      timer = undefined;
      if (latest === shown) return;
      shown = latest;
      const id = `${conversationId}|stream-${randomBytes(6).toString('hex')}`;
      if (streamId === undefined) started();
      sequence += 1;
      hub.sendEphemeral(conversationId, {
        type: 'typing',
        id,
        timestamp: new Date().toISOString(),
        channelId: 'directline',
        conversation: { id: conversationId },
        from: BOT_ACCOUNT,
        ...(replyToId ? { replyToId } : {}),
        text: latest,
        channelData: {
          streamType: 'streaming',
          streamSequence: sequence,
          ...(streamId === undefined ? {} : { streamId }),
        },
      });
      streamId ??= id;
    };
    return {
      update(soFar: string) {
        latest = soFar;
        timer ??= setTimeout(send, LIVESTREAM_INTERVAL_MS);
      },
      /** The stored answer, marked as the end of the stream when one was shown. */
      conclude<T extends { channelData?: unknown }>(reply: T): T {
        // Nothing more is shown once the answer is in: a late interim would open a stream never ended.
        clearTimeout(timer);
        timer = undefined;
        if (streamId === undefined) return reply;
        const channelData = (reply.channelData ?? {}) as Record<string, unknown>;
        return { ...reply, channelData: { ...channelData, streamId, streamType: 'final' } };
      },
      stop() {
        clearTimeout(timer);
        timer = undefined;
      },
    };
  }

  function enqueue(row: Speaking, message: Activity, seq: number, requestId?: string): void {
    const log = requestId ? logger.child({ requestId }) : logger;
    const previous = queues.get(row.id) ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(() => answerMessage(row, message, seq, log, requestId))
      .catch((error: unknown) => {
        log.error({ err: error, conversationId: row.id }, 'could not store the agent’s answer');
      })
      .finally(() => {
        if (queues.get(row.id) === next) queues.delete(row.id);
      });
    queues.set(row.id, next);
  }

  return {
    claim,
    enqueue,
    async recoverAbandoned() {
      const abandoned = await claims.claimAbandoned(Date.now(), claim(), RECOVERY_BATCH);
      for (const { seq, activity, userId, assistantId } of abandoned) {
        enqueue({ id: activity.conversation.id, userId, assistantId }, activity, seq);
      }
      return abandoned.length;
    },
    async drain() {
      await Promise.allSettled([...queues.values()]);
    },
  };
}
