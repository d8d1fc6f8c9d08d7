import type { onRequestAsyncHookHandler } from 'fastify';
import type { ApiKeyStore, KeyClass } from '../core/api-keys/api-keys.ts';
import { authErrors, httpErrors } from '../core/errors.ts';
import { requireApiKey } from '../core/http/api-key-guard.ts';
import type { RouteSchema } from '../core/http/route-errors.ts';
import { callbackErrors } from './callbacks/errors.ts';
import { type Operation, operation } from './operation.ts';

/**
 * The routes' access classes: internal → runtime keys; gateway-published → gateway keys; both → either;
 * public → any valid key; callback and open → no key looked at (a callback carries its ciphered parameter).
 */
export type AccessClass = 'internal' | 'gateway' | 'internal-or-gateway' | 'public' | 'callback' | 'open';

type KeyedClass = Exclude<AccessClass, 'callback' | 'open'>;

const allowedClasses: Record<KeyedClass, readonly KeyClass[] | 'any'> = {
  internal: ['runtime'],
  gateway: ['gateway'],
  'internal-or-gateway': ['runtime', 'gateway'],
  public: 'any',
};

/** How a route of each class is documented: its security, the refusals of its credentials, who may call. */
export const accessClasses: Record<AccessClass, Operation['access']> = {
  internal: keyed('Access: internal — API keys of class `runtime` only.'),
  gateway: keyed('Access: gateway-published — API keys of class `gateway` only.'),
  'internal-or-gateway': keyed(
    'Access: internal and gateway-published — API keys of class `runtime` or `gateway`.',
  ),
  // Any class passes: a valid key is never refused for its class.
  public: {
    security: [{ apiKey: [] }],
    errors: [authErrors.CREDENTIALS_MISSING, authErrors.API_KEY_INVALID, httpErrors.RATE_LIMITED],
    description: 'Access: public — any valid API key of the environment.',
  },
  callback: {
    security: [{ callbackData: [] }],
    errors: Object.values(callbackErrors),
    description: 'Access: callback — no API key; the ciphered `data` query parameter authenticates the call.',
  },
  open: { security: [], errors: [], description: 'Access: open — no key.' },
};

function keyed(description: string): Operation['access'] {
  return {
    security: [{ apiKey: [] }],
    errors: [
      authErrors.CREDENTIALS_MISSING,
      authErrors.API_KEY_INVALID,
      authErrors.ACCESS_DENIED,
      httpErrors.RATE_LIMITED,
    ],
    description,
  };
}

/** A callback without its `data` lacks its credential: 401 like a missing key, before any validation. */
const requireCallbackData: onRequestAsyncHookHandler = async (request) => {
  const { data } = (request.query ?? {}) as { data?: unknown };
  if (data === undefined || data === '') throw callbackErrors.CALLBACK_PARAMETER_MISSING();
};

type AccessRoute = <S extends RouteSchema>(
  options: Omit<Operation, 'access'> & { access: AccessClass },
  schema: S,
) => { onRequest: onRequestAsyncHookHandler[]; schema: S };

/**
 * The guard of each access class, and `route()`: a route's options (its guard and its documented schema)
 * from its access class, so the class a route checks is the class it documents.
 */
export function createAccess(apiKeys: ApiKeyStore): { route: AccessRoute } {
  const guards = Object.fromEntries(
    Object.entries(allowedClasses).map(([access, allowed]) => [access, [requireApiKey(apiKeys, allowed)]]),
  ) as Record<KeyedClass, onRequestAsyncHookHandler[]>;
  return {
    route: (options, schema) => ({
      onRequest:
        options.access === 'open'
          ? []
          : options.access === 'callback'
            ? [requireCallbackData]
            : guards[options.access],
      schema: operation({ ...options, access: accessClasses[options.access] }, schema),
    }),
  };
}
