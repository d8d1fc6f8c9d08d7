import type { Logger } from 'pino';
import { readServerSentEvents } from '../../core/http/server-sent-events.ts';
import { type AgentOutcome, isErrorBody, subsystemFailure } from './agent-outcome.ts';

/**
 * One turn through `POST /agents/{name}/stream`: each `chunk` event's text is added to what `onText`
 * hears; `done` carries the whole answer (the invoke body, read by `answer`); an `error` event, or a
 * refusal before the stream, is the family error body as the agent said it. Unreachable, slow (past
 * `timeoutMs` in all) or garbled is 502.
 */
export async function streamAgent(call: {
  url: string;
  jwt: () => Promise<string>;
  body: unknown;
  timeoutMs: number;
  onText: (soFar: string) => void;
  answer: (body: unknown) => AgentOutcome;
  logger: Logger;
  /** Sent as X-Request-Id (see callSubsystem). */
  requestId?: string;
}): Promise<AgentOutcome> {
  try {
    const response = await fetch(call.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await call.jwt()}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(call.requestId ? { 'x-request-id': call.requestId } : {}),
      },
      body: JSON.stringify(call.body),
      signal: AbortSignal.timeout(call.timeoutMs),
    });
    if (!response.ok || !response.body) {
      const body: unknown = await response.json().catch(() => undefined);
      const retryAfter = response.headers.get('retry-after') ?? undefined;
      return isErrorBody(body)
        ? { ok: false, status: response.status, body, ...(retryAfter ? { retryAfter } : {}) }
        : subsystemFailure(`The agents subsystem answered ${response.status}.`);
    }
    let text = '';
    for await (const { event, data } of readServerSentEvents(response.body)) {
      const payload: unknown = JSON.parse(data);
      if (event === 'chunk') {
        text += String((payload as { text?: unknown }).text ?? '');
        call.onText(text);
      } else if (event === 'done') return call.answer(payload);
      else if (event === 'error') {
        return isErrorBody(payload)
          ? { ok: false, status: 502, body: payload }
          : subsystemFailure('The agents subsystem failed mid-answer.');
      }
    }
    return subsystemFailure('The agents subsystem ended its answer early.');
  } catch (error) {
    call.logger.warn({ err: error }, 'the agents server’s stream failed');
    return subsystemFailure('The agents subsystem could not be reached or did not answer in time.');
  }
}
