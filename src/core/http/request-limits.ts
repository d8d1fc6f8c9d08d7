import { httpErrors } from '../errors.ts';

/** Counts a principal's requests; over its limit it throws 429 RATE_LIMITED with Retry-After. */
export interface RequestLimiter {
  hit(principal: string, now?: number): void;
}

/**
 * A fixed window, in this process's memory: every window starts with an empty count, so memory holds
 * only the principals seen in the current window. Undefined when the limit is 0, so the request path
 * pays nothing for a limit that is off.
 */
export function requestLimiter(limit: number, windowSeconds: number): RequestLimiter | undefined {
  if (limit <= 0) return undefined;
  const windowMs = windowSeconds * 1000;
  let windowStart = 0;
  let counts = new Map<string, number>();
  return {
    hit(principal, now = Date.now()) {
      if (now - windowStart >= windowMs) {
        windowStart = now - (now % windowMs);
        counts = new Map();
      }
      const hits = (counts.get(principal) ?? 0) + 1;
      counts.set(principal, hits);
      if (hits <= limit) return;
      const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw httpErrors.RATE_LIMITED(`More than ${limit} requests in ${windowSeconds} seconds.`, {
        headers: { 'retry-after': String(retryAfter) },
      });
    },
  };
}
