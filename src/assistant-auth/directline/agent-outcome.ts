import { type ErrorBody, errorBody } from '../../core/errors.ts';
import type { ReplyAttachment, SuggestedActions } from './schemas.ts';

/**
 * What one turn through the agents server came to, whichever way it was called (agent-client.ts's invoke,
 * agent-stream.ts's stream): both read it and make it, so it lives apart from either.
 */

/** The agent's answer as the channel carries it into a bot activity. */
interface AgentReply {
  output: string;
  /** `plain` unless the agent said otherwise: what it quotes never becomes a link or an element. */
  textFormat: string;
  suggestedActions?: SuggestedActions;
  attachments?: ReplyAttachment[];
}

export type AgentOutcome =
  | ({ ok: true } & AgentReply)
  | { ok: false; status: number; body: ErrorBody; retryAfter?: string };

export function isErrorBody(value: unknown): value is ErrorBody {
  const body = value as Partial<ErrorBody> | undefined;
  return (
    typeof body?.code === 'string' &&
    typeof body.message === 'string' &&
    Array.isArray(body.errors) &&
    body.errors.every((item) => typeof item?.type === 'string' && typeof item.message === 'string')
  );
}

/** The agents server failed us: 502, with what went wrong. */
export const subsystemFailure = (message: string): AgentOutcome => ({
  ok: false,
  status: 502,
  body: errorBody(502, 'SUBSYSTEM_ERROR', message),
});
