import { httpErrors } from '../../core/errors.ts';
import { mediaErrors } from './errors.ts';

function malformed(detail: string): Error {
  return httpErrors.MALFORMED_BODY(`The JSON body could not be read: ${detail}.`);
}

/** Depth and `__proto__` check of a decoded body, shared by the formats that decode without a walk. */
export function checkTree(value: unknown, maxDepth: number, depth = 0): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth + 1 > maxDepth) throw mediaErrors.BODY_TOO_DEEP();
  if (Array.isArray(value)) {
    for (const item of value) checkTree(item, maxDepth, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__') throw malformed('the key __proto__ is not allowed');
    checkTree((value as Record<string, unknown>)[key], maxDepth, depth + 1);
  }
}

/** Decodes a JSON body (V8's parser does not recurse, so depth is checked on the result). */
export function decodeJson(text: string, maxDepth: number): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw malformed(error instanceof Error ? error.message : 'not JSON');
  }
  checkTree(value, maxDepth);
  return value;
}
