import { AgentExternalServiceException, AgentModelError, AgentRateLimitError } from '../exceptions.ts';

/** The error object an OpenAI-compatible endpoint answers, in a body or in a streamed event. */
export interface UpstreamError {
  error?: { code?: unknown; type?: unknown };
}

/** Seconds to wait, from `retry-after-ms` (preferred, as OpenAI sends it) or `retry-after`. */
export function retryAfterFrom(headers: Headers, now = Date.now()): string {
  const milliseconds = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) {
    return String(Math.max(1, Math.ceil(milliseconds / 1000)));
  }
  const value = headers.get('retry-after')?.trim();
  if (value && /^\d+$/.test(value)) return value;
  const date = value ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(date)) return String(Math.max(1, Math.ceil((date - now) / 1000)));
  return '1';
}

function upstreamCode(body: UpstreamError | undefined): string | undefined {
  const code = body?.error?.code ?? body?.error?.type;
  return typeof code === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(code) ? code : undefined;
}

/**
 * What went wrong with a model endpoint, as the agents' exceptions: each names the endpoint
 * (`serviceName`) and never carries the upstream's text to our client.
 */
export function modelFailures(options: { serviceName: string; timeoutMs: number; apiKey?: string }) {
  const { serviceName } = options;
  return {
    /** A failed or silent connection; a caller that went away gets its own abort reason back. */
    failure(error: unknown, caller: AbortSignal, silence: AbortSignal, stage: string): unknown {
      if (caller.aborted) return caller.reason;
      if (error instanceof AgentExternalServiceException) return error;
      if (silence.aborted) {
        return new AgentExternalServiceException(
          `The model endpoint did not answer within ${options.timeoutMs} ms.`,
          { service_name: serviceName, cause: error },
        );
      }
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      return new AgentExternalServiceException(`The model endpoint ${stage}.`, {
        service_error_code: typeof code === 'string' ? code : undefined,
        service_name: serviceName,
        cause: error,
      });
    },

    /** An answer other than 2xx: 429 is rate limiting (unless the quota is spent), anything else a model error. */
    async rejection(response: Response, signal: AbortSignal): Promise<Error> {
      const text = await response.text().catch(() => '');
      let body: UpstreamError | undefined;
      try {
        body = JSON.parse(text) as UpstreamError;
      } catch {
        body = undefined;
      }
      const code = upstreamCode(body);
      // Kept for the log only (never our key, should the upstream echo it); never sent to our client.
      const logged = options.apiKey ? text.split(options.apiKey).join('[redacted]') : text;
      const cause = new Error(`${serviceName} ${response.status}: ${logged.slice(0, 500)}`);
      if (signal.aborted) return cause;
      if (response.status === 429 && code !== 'insufficient_quota') {
        return new AgentRateLimitError('The model endpoint is rate limiting requests.', {
          retry_after: retryAfterFrom(response.headers),
          service_error_code: code,
          service_name: serviceName,
          cause,
        });
      }
      return new AgentModelError(`The model endpoint answered ${response.status}.`, {
        service_error_code: code ?? `http_${response.status}`,
        service_name: serviceName,
        cause,
      });
    },

    /** An error event in the middle of a streamed answer. */
    failedWhileAnswering(event: UpstreamError): AgentModelError {
      return new AgentModelError('The model endpoint failed while answering.', {
        service_error_code: upstreamCode(event),
        service_name: serviceName,
      });
    },

    /** A 2xx answer we cannot read. */
    malformed(detail: string): AgentModelError {
      return new AgentModelError(`The model endpoint answered with ${detail}.`, {
        service_error_code: 'invalid_response',
        service_name: serviceName,
      });
    },
  };
}
