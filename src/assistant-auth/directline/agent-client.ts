import type { Logger } from 'pino';
import Value from 'typebox/value';
import type { Config } from '../../core/config.ts';
import { errorBody, ProblemError } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import type { AssistantSigner } from '../signing/signer.ts';
import { type AgentOutcome, isErrorBody, subsystemFailure } from './agent-outcome.ts';
import { streamAgent } from './agent-stream.ts';
import { replyAttachmentsSchema, suggestedActionsSchema } from './schemas.ts';

/** What the agent hears of a file the user uploaded: its contentUrl needs no other credential. */
export interface TurnFile {
  name: string;
  contentType: string;
  size: number;
  contentUrl: string;
}

/** How Web Chat shows the answer's text (`textFormat`); anything else is refused as garbled. */
const TEXT_FORMATS = new Set(['plain', 'markdown', 'xml']);

export interface AgentCall {
  input: string;
  conversationId: string;
  userId: string;
  /** The assistant user the conversation speaks for; null or absent when anonymous. */
  assistantId?: string | null;
  locale?: string;
  attachments?: TurnFile[];
  /** The request that brought the turn: sent as X-Request-Id and on the log lines of a failure. */
  requestId?: string;
}

export interface AgentClient {
  /** How long one call may take before it counts as failed (502). */
  readonly timeoutMs: number;
  invoke(call: AgentCall): Promise<AgentOutcome>;
  /**
   * The same turn through the agent's stream: `onText` hears the answer's text so far as it grows; the
   * outcome is the whole answer, as `invoke` would give it.
   */
  stream(call: AgentCall, onText: (soFar: string) => void): Promise<AgentOutcome>;
}

/** Audience the agents server checks in the assistant's JWTs. */
const AGENTS_AUDIENCE = 'sintonia-agents';
const ERROR_STATUSES = Array.from({ length: 200 }, (_, index) => 400 + index);

/** The invoke answer: its output and text format, and suggested actions and attachments when well formed. */
function replyOf(body: unknown): AgentOutcome {
  const { output, textFormat, suggestedActions, attachments } = (body ?? {}) as Record<string, unknown>;
  if (typeof output !== 'string') return subsystemFailure('The agents subsystem answered without output.');
  if (textFormat !== undefined && !(typeof textFormat === 'string' && TEXT_FORMATS.has(textFormat)))
    return subsystemFailure('The agents subsystem answered a malformed textFormat.');
  if (suggestedActions !== undefined && !Value.Check(suggestedActionsSchema, suggestedActions))
    return subsystemFailure('The agents subsystem answered malformed suggestedActions.');
  if (attachments !== undefined && !Value.Check(replyAttachmentsSchema, attachments))
    return subsystemFailure('The agents subsystem answered malformed attachments.');
  return {
    ok: true,
    output,
    textFormat: typeof textFormat === 'string' ? textFormat : 'plain',
    ...(suggestedActions === undefined ? {} : { suggestedActions }),
    ...(attachments === undefined ? {} : { attachments }),
  };
}

/**
 * Calls `POST {AGENTS_URL}/agents/{DIRECTLINE_AGENT}/invoke` with a JWT the assistant signs. An answer in
 * the family error body is kept as the agent said it; an unreachable, slow or garbled server is 502.
 */
export function createAgentClient(
  settings: Pick<Config, 'DIRECTLINE_AGENT' | 'MODEL_TIMEOUT_MS' | 'SUBSYSTEM_TIMEOUT_MS'>,
  {
    agentsUrl,
    signer,
    logger,
  }: {
    /** AGENTS_URL or where the agents server listens, read per call (known once it listens). */
    agentsUrl: () => string;
    signer: AssistantSigner;
    logger: Logger;
  },
): AgentClient {
  const agent = encodeURIComponent(settings.DIRECTLINE_AGENT);
  // A model answer may take MODEL_TIMEOUT_MS on the agents server; a subsystem timeout on top covers the rest.
  const timeoutMs = settings.MODEL_TIMEOUT_MS + settings.SUBSYSTEM_TIMEOUT_MS;

  /** The JWT the call carries: `assistant_id` tells the agent who speaks (only a bound conversation's do). */
  const jwtFor = ({ userId, conversationId, assistantId }: AgentCall) =>
    signer.sign(
      {
        sub: userId,
        channel: 'directline',
        conversationId,
        ...(assistantId ? { assistant_id: assistantId } : {}),
      },
      { audience: AGENTS_AUDIENCE },
    );
  /** A call's log: its lines carry the request that brought the turn. */
  const logOf = ({ requestId }: AgentCall) => (requestId ? logger.child({ requestId }) : logger);
  const bodyOf = ({ input, conversationId, locale, attachments }: AgentCall) => ({
    input,
    conversationId,
    ...(locale ? { locale } : {}),
    ...(attachments?.length ? { attachments } : {}),
  });

  return {
    timeoutMs,
    stream: (call, onText) =>
      streamAgent({
        url: `${agentsUrl().replace(/\/+$/, '')}/agents/${agent}/stream`,
        jwt: () => jwtFor(call),
        body: bodyOf(call),
        timeoutMs,
        onText,
        answer: replyOf,
        logger: logOf(call),
        requestId: call.requestId,
      }),
    async invoke(call) {
      const { conversationId } = call;
      const base = agentsUrl().replace(/\/+$/, '');
      const jwt = await jwtFor(call);
      let answer: Awaited<ReturnType<typeof callSubsystem<unknown>>>;
      try {
        answer = await callSubsystem<unknown>(
          {
            subsystem: 'agents',
            url: `${base}/agents/${agent}/invoke`,
            method: 'POST',
            headers: { authorization: `Bearer ${jwt}` },
            body: bodyOf(call),
            timeoutMs,
            requestId: call.requestId,
          },
          ERROR_STATUSES,
        );
      } catch (error) {
        if (error instanceof ProblemError) {
          logOf(call).warn({ err: error.cause ?? error, conversationId }, 'the agents server failed');
          return { ok: false, status: error.status, body: error.toBody() };
        }
        throw error;
      }
      if (answer.status >= 400) {
        const status = answer.status;
        const body = isErrorBody(answer.body)
          ? answer.body
          : errorBody(502, 'SUBSYSTEM_ERROR', `The agents subsystem answered ${status}.`);
        const retryAfter = answer.headers.get('retry-after') ?? undefined;
        return { ok: false, status, body, ...(retryAfter ? { retryAfter } : {}) };
      }
      return replyOf(answer.body);
    },
  };
}
