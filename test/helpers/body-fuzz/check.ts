import { performance } from 'node:perf_hooks';
import type { JsonSchema } from '../../../src/client-api/media/schema.ts';
import { ProblemError } from '../../../src/core/errors.ts';
import type { Codec } from './codecs.ts';

/**
 * What every body must get from its decoder: a value, or one of the refusals a client is told about
 * (400/413 with a family error type), in bounded time, and a value no larger than the bytes that said it.
 */

/** The refusals a broken body may get; anything else (a TypeError, a RangeError…) would be a 500. */
export const refusalTypes: ReadonlySet<string> = new Set([
  'MALFORMED_BODY',
  'BODY_TOO_DEEP',
  'BODY_TOO_LARGE',
  'INTEGER_OUT_OF_RANGE',
  'XML_DTD_FORBIDDEN',
  'OAUTH_REQUEST_INVALID',
  'VALIDATION_ERROR',
]);

/** Longest one decode may take before it is a failure (a hang is caught apart, by the watchdog). */
export const DECODE_BOUND_MS = 1000;

/** Values in the result, counted without recursion and given up past `limit`. */
function countValues(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const item = stack.pop();
    count++;
    if (typeof item === 'object' && item !== null) {
      for (const child of Object.values(item)) stack.push(child);
    }
  }
  return count;
}

/** Decodes one body; answers why it failed, or undefined when it was answered as it should be. */
export function checkBody(codec: Codec, body: Buffer, schema: JsonSchema): string | undefined {
  const started = performance.now();
  let value: unknown;
  let refusal: unknown;
  try {
    value = codec.decode(body, schema);
  } catch (error) {
    refusal = error;
  }
  const took = performance.now() - started;
  if (took > DECODE_BOUND_MS) return `took ${Math.round(took)} ms`;
  if (refusal !== undefined) {
    if (!(refusal instanceof ProblemError)) {
      const name = refusal instanceof Error ? refusal.name : typeof refusal;
      return `threw ${name}: ${refusal instanceof Error ? refusal.message : String(refusal)}`;
    }
    if ((refusal.status !== 400 && refusal.status !== 413) || !refusalTypes.has(refusal.type)) {
      return `refused with ${refusal.status} ${refusal.type}`;
    }
    return undefined;
  }
  // Linear in the body: a value costs a byte, or (UBJSON's $Z/$T/$F) a share of a budget of one per byte.
  const limit = 2 * body.length + 64;
  if (countValues(value, limit) > limit) return `${body.length} bytes decoded to more than ${limit} values`;
  return undefined;
}
