import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ApiKeyRecord, ApiKeyStore, KeyClass } from '../api-keys/api-keys.ts';
import { authErrors } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key that authenticated this request, when one did. */
    apiKey?: ApiKeyRecord;
  }
}

export const API_KEY_HEADER = 'x-api-key';

/** The presented key's record; undefined when no key was sent; throws 401 for an unknown or revoked key. */
export async function authenticateApiKey(
  store: ApiKeyStore,
  request: FastifyRequest,
): Promise<ApiKeyRecord | undefined> {
  const presented = request.headers[API_KEY_HEADER];
  if (presented === undefined) return undefined;
  const record = typeof presented === 'string' ? await store.verify(presented) : undefined;
  if (!record) throw authErrors.API_KEY_INVALID();
  request.apiKey = record;
  return record;
}

/**
 * An onRequest hook (it runs before the body is read) that lets a request through only with a valid key
 * of one of the allowed classes: no key or a bad key is 401, a key of another class is 403.
 */
export function requireApiKey(
  store: ApiKeyStore,
  allowed: readonly KeyClass[] | 'any',
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const record = await authenticateApiKey(store, request);
    if (!record)
      throw authErrors.CREDENTIALS_MISSING(`An API key is required in the ${API_KEY_HEADER} header.`);
    if (allowed !== 'any' && !allowed.includes(record.keyClass)) {
      throw authErrors.ACCESS_DENIED(`This operation accepts keys of class ${allowed.join(' or ')}.`);
    }
  };
}
