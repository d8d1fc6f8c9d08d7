import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AccessClass } from '../../src/assistant-auth/access.ts';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { composeAssistantAuth } from '../../src/assistant-auth/composition.ts';
import type { UserService } from '../../src/assistant-auth/users/service.ts';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type TestCore } from '../helpers/harness.ts';
import { isHeadTwin } from '../helpers/head-twins.ts';
import { type FakeDirectLine, startFakeDirectLine } from './helpers/fake-directline.ts';

type Caller = 'none' | 'runtime' | 'gateway' | 'client' | 'backoffice' | 'revoked' | 'unknown';
const callers: Caller[] = ['none', 'runtime', 'gateway', 'client', 'backoffice', 'revoked', 'unknown'];

interface Call {
  url: string;
  headers?: Record<string, string>;
  payload?: Record<string, unknown>;
}

interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  access: AccessClass;
  /** The status a caller who may call it gets. */
  ok: number;
  /** A fresh request (its own user, its own callback parameter) for each call. */
  request(): Promise<Call>;
}

const phone = () => `+346${String(randomInt(10_000_000, 99_999_999))}`;

/** The contract's access table: every endpoint with its access class. */
function endpoints(core: TestCore, users: UserService): Endpoint[] {
  const channelUser = async (phoneNumber?: string) =>
    (await users.findOrCreate({ channel: 'web', identity: randomUUID(), phoneNumber }, 'channel')).user;
  return [
    {
      method: 'GET',
      path: '/users/assistant-id',
      access: 'gateway',
      ok: 201,
      request: async () => ({
        url: '/users/assistant-id',
        headers: { 'x-channel': 'web', 'x-channel-user-id': randomUUID() },
      }),
    },
    {
      method: 'GET',
      path: '/users/assistant-id/{assistantId}',
      access: 'internal',
      ok: 201,
      request: async () => ({
        url: `/users/assistant-id/wa-${randomUUID()}`,
        headers: { 'x-channel': 'whatsapp' },
      }),
    },
    {
      method: 'GET',
      path: '/users/assistantid/integrated',
      access: 'callback',
      ok: 201,
      request: async () => {
        const { data } = makeCallbackParam(core, { identity: randomUUID(), channel: 'web' });
        return { url: `/users/assistantid/integrated?data=${encodeURIComponent(data)}` };
      },
    },
    {
      method: 'DELETE',
      path: '/admin/users/phone-numbers/{phone_number}',
      access: 'gateway',
      ok: 204,
      request: async () => {
        const number = phone();
        await channelUser(number);
        return { url: `/admin/users/phone-numbers/${encodeURIComponent(number)}` };
      },
    },
    {
      method: 'GET',
      path: '/users/assistantid/integrated/logout',
      access: 'callback',
      ok: 204,
      request: async () => {
        const identity = randomUUID();
        await users.findOrCreate({ channel: 'web', identity }, 'integrated');
        const { data } = makeCallbackParam(core, { identity, channel: 'web' });
        return { url: `/users/assistantid/integrated/logout?data=${encodeURIComponent(data)}` };
      },
    },
    {
      method: 'DELETE',
      path: '/users/{assistantId}',
      access: 'internal-or-gateway',
      ok: 204,
      request: async () => ({ url: `/users/${(await channelUser()).assistantId}` }),
    },
    {
      method: 'GET',
      path: '/users/{assistantId}',
      access: 'internal',
      ok: 200,
      request: async () => ({ url: `/users/${(await channelUser()).assistantId}` }),
    },
    {
      method: 'POST',
      path: '/users/{assistantId}/delegations',
      access: 'internal',
      ok: 201,
      request: async () => {
        const user = await channelUser();
        await users.link(user.assistantId, { accountNumber: 'ACC-MATRIX' });
        return { url: `/users/${user.assistantId}/delegations`, payload: { audience: 'client-api' } };
      },
    },
    {
      method: 'GET',
      path: '/users/assistant-id-global/{assistant_id_global}',
      access: 'gateway',
      ok: 200,
      request: async () => ({
        url: `/users/assistant-id-global/${(await channelUser()).assistantIdGlobal}`,
        headers: { 'x-channel': 'web' },
      }),
    },
    { method: 'GET', path: '/token', access: 'public', ok: 200, request: async () => ({ url: '/token' }) },
    {
      method: 'GET',
      path: '/token/wss',
      access: 'public',
      ok: 200,
      request: async () => ({ url: '/token/wss' }),
    },
    {
      method: 'GET',
      path: '/openid/issuer/.well-known/openid-configuration',
      access: 'open',
      ok: 200,
      request: async () => ({ url: '/openid/issuer/.well-known/openid-configuration' }),
    },
    {
      method: 'GET',
      path: '/openid/jwk',
      access: 'open',
      ok: 200,
      request: async () => ({ url: '/openid/jwk' }),
    },
    {
      method: 'POST',
      path: '/delegations/status',
      access: 'open',
      ok: 200,
      request: async () => ({ url: '/delegations/status', payload: { token: 'not.a.token' } }),
    },
    { method: 'GET', path: '/healthz', access: 'open', ok: 200, request: async () => ({ url: '/healthz' }) },
    { method: 'GET', path: '/ping', access: 'gateway', ok: 200, request: async () => ({ url: '/ping' }) },
    { method: 'GET', path: '/config', access: 'public', ok: 200, request: async () => ({ url: '/config' }) },
    {
      method: 'GET',
      path: '/metrics',
      access: 'public',
      ok: 200,
      request: async () => ({ url: '/metrics' }),
    },
  ];
}

/** The contract's answer for a caller: the route's own status, 401 (no, unknown or revoked key) or 403 (wrong class). */
function expected(endpoint: Endpoint, caller: Caller): { status: number; type?: string } {
  if (endpoint.access === 'open' || endpoint.access === 'callback') return { status: endpoint.ok };
  if (caller === 'none') return { status: 401, type: 'CREDENTIALS_MISSING' };
  if (caller === 'revoked' || caller === 'unknown') return { status: 401, type: 'API_KEY_INVALID' };
  const allowed: Record<Exclude<AccessClass, 'open' | 'callback'>, Caller[]> = {
    internal: ['runtime'],
    gateway: ['gateway'],
    'internal-or-gateway': ['runtime', 'gateway'],
    public: ['runtime', 'gateway', 'client', 'backoffice'],
  };
  return allowed[endpoint.access].includes(caller)
    ? { status: endpoint.ok }
    : { status: 403, type: 'ACCESS_DENIED' };
}

describe('assistant-auth access matrix', () => {
  let app: App;
  let core: TestCore;
  let close: () => Promise<void>;
  let directLine: FakeDirectLine;
  const keys = new Map<Caller, string>();

  before(async () => {
    directLine = await startFakeDirectLine();
    const test = await createTestApp('assistant-auth', {
      DIRECTLINE_URL: directLine.url,
      DIRECTLINE_SECRET: directLine.secret,
    });
    ({ app, core, close } = test);
    for (const keyClass of ['runtime', 'gateway', 'client', 'backoffice'] as const) {
      keys.set(keyClass, (await core.apiKeys.create(keyClass, `matrix-${keyClass}`)).key);
    }
    const revoked = await core.apiKeys.create('gateway', 'matrix-revoked');
    await core.apiKeys.revoke(revoked.id);
    keys.set('revoked', revoked.key);
    keys.set('unknown', `snt_runtime_0123456789abcdef_${'A'.repeat(43)}`);
  });
  after(async () => {
    await close();
    await directLine.close();
  });

  describe('security', () => {
    it('lists every operation of the OpenAPI document in the matrix', async () => {
      const document = (await app.inject({ url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, unknown>>;
      };
      const table = endpoints(core, composeAssistantAuth(core).users).map((e) => `${e.method} ${e.path}`);
      const documented = Object.entries(document.paths)
        .flatMap(([path, operations]) =>
          Object.keys(operations)
            .filter((method) => !isHeadTwin(operations, method))
            .map((method) => `${method.toUpperCase()} ${path}`),
        )
        .filter((operation) => operation !== 'GET /readyz');
      assert.deepEqual([...documented].sort(), [...table].sort());
    });

    it('answers each caller exactly as the contract says', async () => {
      const users = composeAssistantAuth(core).users;
      const failures: string[] = [];
      for (const endpoint of endpoints(core, users)) {
        for (const caller of callers) {
          const call = await endpoint.request();
          const key = keys.get(caller);
          const response = await app.inject({
            method: endpoint.method,
            url: call.url,
            headers: { ...call.headers, ...(key ? { 'x-api-key': key } : {}) },
            ...(call.payload === undefined ? {} : { payload: call.payload }),
          });
          const want = expected(endpoint, caller);
          const got = response.statusCode;
          const body =
            got >= 400 ? (response.json() as { code: string; errors: Array<{ type: string }> }) : undefined;
          const type = body?.errors[0]?.type;
          const category = { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN' }[want.status];
          if (got !== want.status || type !== want.type || (category && body?.code !== category)) {
            failures.push(
              `${endpoint.method} ${endpoint.path} as ${caller}: want ${want.status} ${want.type ?? ''}, got ${got} ${type ?? ''}`,
            );
          }
        }
      }
      assert.deepEqual(failures, []);
    });

    it('lets only gateway and runtime keys bind /token and /token/wss to a person', async () => {
      // Past the access check the external service here refuses to bind: 400 CHANNEL_BINDING_UNSUPPORTED.
      const want: Record<Caller, [number, string]> = {
        none: [401, 'CREDENTIALS_MISSING'],
        revoked: [401, 'API_KEY_INVALID'],
        unknown: [401, 'API_KEY_INVALID'],
        client: [403, 'ACCESS_DENIED'],
        backoffice: [403, 'ACCESS_DENIED'],
        gateway: [400, 'CHANNEL_BINDING_UNSUPPORTED'],
        runtime: [400, 'CHANNEL_BINDING_UNSUPPORTED'],
      };
      const failures: string[] = [];
      for (const url of ['/token', '/token/wss']) {
        for (const caller of callers) {
          const key = keys.get(caller);
          const response = await app.inject({
            url,
            headers: {
              'x-channel': 'web',
              'x-channel-user-id': randomUUID(),
              ...(key ? { 'x-api-key': key } : {}),
            },
          });
          const type = (response.json() as { errors?: Array<{ type: string }> }).errors?.[0]?.type;
          const [status, wanted] = want[caller];
          if (response.statusCode !== status || type !== wanted) {
            failures.push(
              `${url} as ${caller}: want ${status} ${wanted}, got ${response.statusCode} ${type}`,
            );
          }
        }
      }
      assert.deepEqual(failures, []);
    });
  });
});
