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

/** `Authorization: Bearer <credential>`, the scheme's name in any case (RFC 9110). */
const BEARER = /^bearer +(\S+)$/i;

/**
 * How long a key that opened /metrics is believed without asking the store again: scrapes go on answering
 * through a store outage (when sintonia_problem_responses_total{type="STORE_UNAVAILABLE"} is what the
 * alert reads), and a revoked key is refused within this.
 */
const SCRAPE_KEY_MEMORY_MS = 60_000;
/** Keys remembered at once: an environment has a few scrapers; past this the memory starts again. */
const SCRAPE_KEYS_REMEMBERED = 16;

/**
 * An onRequest hook for `/metrics`: any valid key of the environment, in the x-api-key header or as
 * `Authorization: Bearer <key>` (what Prometheus sends from `authorization.credentials_file`); no key is
 * 401 CREDENTIALS_MISSING, an unknown or revoked one 401 API_KEY_INVALID.
 */
export function requireScrapeKey(store: ApiKeyStore): onRequestAsyncHookHandler {
  const verified = new Map<string, { record: ApiKeyRecord; until: number }>();
  return async (request) => {
    const header = request.headers[API_KEY_HEADER];
    const presented = header ?? BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (presented === undefined)
      throw authErrors.CREDENTIALS_MISSING(
        `An API key is required, in the ${API_KEY_HEADER} header or as Authorization: Bearer <key>.`,
      );
    if (typeof presented !== 'string') throw authErrors.API_KEY_INVALID();
    const now = Date.now();
    const known = verified.get(presented);
    if (known !== undefined && known.until > now) {
      request.apiKey = known.record;
      return;
    }
    const record = await store.verify(presented);
    if (!record) throw authErrors.API_KEY_INVALID();
    if (verified.size >= SCRAPE_KEYS_REMEMBERED) verified.clear();
    verified.set(presented, { record, until: now + SCRAPE_KEY_MEMORY_MS });
    request.apiKey = record;
  };
}
