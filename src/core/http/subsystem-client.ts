import { subsystemErrors } from '../errors.ts';

export interface SubsystemCall {
  /** Names the subsystem in the error message and logs (`campaigns`, `ad-decision`, `directline`…). */
  subsystem: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * The id of the request this call serves, sent as X-Request-Id: a service of the family takes it as its
   * own request's id, so its log lines carry the id of the request that caused them.
   */
  requestId?: string;
}

export interface SubsystemAnswer<T> {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined for an empty one. */
  body: T | undefined;
}

/**
 * Calls a configured HTTP subsystem. A refused connection, a timeout, a non-JSON body or a status
 * outside 2xx (unless `acceptStatuses` names it) becomes 502 SUBSYSTEM_ERROR; what the subsystem said
 * is kept as the error's cause for the log, never sent to our client.
 */
export async function callSubsystem<T>(
  call: SubsystemCall,
  acceptStatuses: number[] = [],
): Promise<SubsystemAnswer<T>> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
      headers: {
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(call.requestId === undefined ? {} : { 'x-request-id': call.requestId }),
        ...call.headers,
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
    });
  } catch (error) {
    const reason = timeout.aborted ? `did not answer within ${call.timeoutMs} ms` : 'could not be reached';
    throw subsystemErrors.SUBSYSTEM_ERROR(`The ${call.subsystem} subsystem ${reason}.`, { cause: error });
  }
  if (!response.ok && !acceptStatuses.includes(response.status)) {
    const detail = await response.text().catch(() => '');
    throw subsystemErrors.SUBSYSTEM_ERROR(`The ${call.subsystem} subsystem answered ${response.status}.`, {
      cause: new Error(`${call.subsystem} ${response.status}: ${detail.slice(0, 500)}`),
    });
  }
  const text = await response.text().catch((error: unknown) => {
    throw subsystemErrors.SUBSYSTEM_ERROR(`The ${call.subsystem} subsystem broke off its answer.`, {
      cause: error,
    });
  });
  if (text.length === 0) return { status: response.status, headers: response.headers, body: undefined };
  try {
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as T };
  } catch (error) {
    throw subsystemErrors.SUBSYSTEM_ERROR(
      `The ${call.subsystem} subsystem answered with a body that is not JSON.`,
      {
        cause: error,
      },
    );
  }
}
