import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody } from '../core/errors.ts';
import type { AnswerExtras } from './agent.ts';
import { translateAgentError } from './error-policy.ts';
import type { TextFormat } from './schemas.ts';

/** One Server-Sent Event; data is JSON on one line. */
function serverSentEvent(event: 'chunk' | 'done' | 'error', data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * An AbortSignal that fires when the client goes away before its answer is complete, so the agent's
 * work (and the model call under it) stops with it.
 */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

/**
 * For a failure of the agent's work: when the client went away meanwhile there is no one to answer,
 * so the cancellation is logged and the response abandoned; any other failure is rethrown.
 */
export function abandonIfClientGone(
  request: FastifyRequest,
  reply: FastifyReply,
  signal: AbortSignal,
  error: unknown,
): FastifyReply {
  if (!signal.aborted) throw error;
  request.log.info('client went away; agent work cancelled');
  reply.hijack();
  reply.raw.destroy();
  return reply;
}

/** An agent's answer under way: its first chunk in hand, the rest to come, and how to show them. */
export interface AnswerChunks {
  first: IteratorResult<string, AnswerExtras | undefined>;
  rest: AsyncIterator<string, AnswerExtras | undefined>;
  textFormat: TextFormat;
}

/**
 * The events of a stream whose first chunk is already in hand: chunks, then `done`; a failure becomes an
 * `error` event with the same body the error handler would send (and the same logging).
 */
export async function* streamEvents(
  request: FastifyRequest,
  signal: AbortSignal,
  { first, rest, textFormat }: AnswerChunks,
  done: (output: string, extras: AnswerExtras | undefined) => unknown,
): AsyncGenerator<string> {
  let output = '';
  try {
    let next = first;
    while (!next.done) {
      output += next.value;
      // Each chunk says how to show it: a client showing the text as it comes knows at once.
      yield serverSentEvent('chunk', { text: next.value, textFormat });
      next = await rest.next();
    }
    yield serverSentEvent('done', done(output, next.value));
  } catch (error) {
    if (signal.aborted) {
      request.log.info('client went away; agent stream cancelled');
      return;
    }
    const { problem, unexpected } = translateAgentError(error);
    if (unexpected) request.log.error({ err: error }, 'unexpected error in agent stream');
    else request.log.warn({ err: error }, problem.message);
    const body: ErrorBody = problem.toBody();
    yield serverSentEvent('error', body);
  } finally {
    await rest.return?.();
  }
}
