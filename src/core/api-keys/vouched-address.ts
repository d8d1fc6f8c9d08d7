import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { API_KEY_HEADER } from '../http/api-key-guard.ts';
import type { ApiKeyStore } from './api-keys.ts';

/**
 * The header in which a service of the family, calling another on a person's behalf (the chat page's
 * sign-in), names the person's own address. Believed only beside a valid key of class runtime.
 */
export const CLIENT_ADDRESS_HEADER = 'x-sintonia-client-address';

/** The headers that vouch for `address` with the runtime key `runtimeKey`. */
export function vouchingHeaders(runtimeKey: string, address: string): Record<string, string> {
  return { [API_KEY_HEADER]: runtimeKey, [CLIENT_ADDRESS_HEADER]: address };
}

/**
 * The address a per-client limit counts: the one a runtime key vouches for in CLIENT_ADDRESS_HEADER, else
 * `request.ip` (the socket peer, or a TRUSTED_PROXIES peer's X-Forwarded-For). A claimed address without
 * a valid runtime key, or that is no IP address, is ignored: anyone else can only be counted as themselves.
 */
export async function vouchedClientAddress(
  apiKeys: Pick<ApiKeyStore, 'verify'>,
  request: FastifyRequest,
): Promise<string> {
  const claimed = request.headers[CLIENT_ADDRESS_HEADER];
  const key = request.headers[API_KEY_HEADER];
  if (typeof claimed !== 'string' || typeof key !== 'string' || isIP(claimed) === 0) return request.ip;
  const record = await apiKeys.verify(key);
  return record?.keyClass === 'runtime' ? claimed : request.ip;
}
