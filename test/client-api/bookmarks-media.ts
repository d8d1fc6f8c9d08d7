import { decode as decodeUbjson } from '@shelacek/ubjson';
import { deserialize } from 'bson';
import type { LightMyRequestResponse } from 'fastify';
import { parseStringPromise } from 'xml2js';

export type NonJson = 'application/bson' | 'application/ubjson' | 'application/xml';

/**
 * Reads a response body with a decoder independent of ours: bson's deserialize, @shelacek/ubjson, and
 * xml2js (explicitArray off, so single children are values and the root element is the only key).
 */
export async function decoded(response: LightMyRequestResponse): Promise<unknown> {
  const type = String(response.headers['content-type'] ?? '');
  const bytes = response.rawPayload;
  if (type.startsWith('application/bson')) return bytes.length === 0 ? undefined : deserialize(bytes);
  if (type.startsWith('application/ubjson')) {
    return decodeUbjson(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    );
  }
  if (type.startsWith('application/xml'))
    return parseStringPromise(bytes.toString('utf8'), { explicitArray: false });
  throw new Error(`not a non-JSON media type: ${type}`);
}
