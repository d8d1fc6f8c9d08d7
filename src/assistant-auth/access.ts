import type { onRequestAsyncHookHandler } from 'fastify';
import type { KeyClass } from '../core/api-keys/api-keys.ts';
import type { Core } from '../core/core.ts';
import { requireApiKey } from '../core/http/api-key-guard.ts';

/**
 * SPEC area B's access classes: internal → runtime keys; gateway-published → gateway keys; both → either;
 * public → any valid key; callback and open → no key looked at (a callback carries its ciphered parameter).
 */
export type AccessClass = 'internal' | 'gateway' | 'internal-or-gateway' | 'public' | 'callback' | 'open';

const allowedClasses: Record<Exclude<AccessClass, 'callback' | 'open'>, readonly KeyClass[] | 'any'> = {
  internal: ['runtime'],
  gateway: ['gateway'],
  'internal-or-gateway': ['runtime', 'gateway'],
  public: 'any',
};

/** The onRequest hooks of a route of this access class. */
export function accessHooks(core: Core, access: AccessClass): onRequestAsyncHookHandler[] {
  if (access === 'callback' || access === 'open') return [];
  return [requireApiKey(core.apiKeys, allowedClasses[access])];
}

/** The OpenAPI `security` of a route of this access class. */
export function accessSecurity(access: AccessClass): Array<Record<string, string[]>> {
  if (access === 'open') return [];
  if (access === 'callback') return [{ callbackData: [] }];
  return [{ apiKey: [] }];
}

/** The error statuses the access class adds to a route. */
export function accessStatuses(access: AccessClass): Array<401 | 403> {
  if (access === 'open') return [];
  if (access === 'callback' || access === 'public') return [401];
  return [401, 403];
}

/** A line for the route's description: who may call it. */
export function accessDescription(access: AccessClass): string {
  return {
    internal: 'Access: internal — API keys of class `runtime` only.',
    gateway: 'Access: gateway-published — API keys of class `gateway` only.',
    'internal-or-gateway':
      'Access: internal and gateway-published — API keys of class `runtime` or `gateway`.',
    public: 'Access: public — any valid API key of the environment.',
    callback: 'Access: callback — no API key; the ciphered `data` query parameter authenticates the call.',
    open: 'Access: open — no key.',
  }[access];
}
