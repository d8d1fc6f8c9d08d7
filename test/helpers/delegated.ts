import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { type Env, startTestFamily, type TestCore } from './harness.ts';

/** A JSON request: its method (GET unless told), a device or delegated token, an API key, a JSON body. */
export interface JsonInit {
  method?: string;
  token?: string;
  key?: string;
  body?: unknown;
}

/** A JSON request over real HTTP: answers the status and the parsed body (undefined when empty). */
export async function callJson<Body = unknown>(
  url: string,
  init: JsonInit = {},
): Promise<{ status: number; body: Body }> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.key ? { 'x-api-key': init.key } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Body };
}

/**
 * client-api and assistant-auth on free ports, with the assistant runtime's API key: what a test of the
 * assistant acting for its linked person (a delegated token) starts from.
 */
export interface DelegationFamily {
  core: TestCore;
  close(): Promise<void>;
  clientApi: string;
  assistantAuth: string;
  runtimeKey: string;
  /** client-api's base URL with its path prefix (`…/api/v1`). */
  api: string;
  /** callJson, for the tests' requests to either service. */
  call<Body = unknown>(url: string, init?: JsonInit): Promise<{ status: number; body: Body }>;
  /** An assistant user linked to `accountNumber` through assistant-auth's callback (201): answers its id. */
  linkedAssistant(accountNumber: string): Promise<string>;
  /** A delegated token for client-api, asked by the runtime (201), with `scope` or the default scopes. */
  delegation(assistantId: string, scope?: string[]): Promise<string>;
}

export async function startDelegationFamily(env: Env = {}): Promise<DelegationFamily> {
  const { core, close } = await startTestFamily(['client-api', 'assistant-auth'], env);
  const assistantAuth = core.serviceUrl('assistant-auth');
  const runtimeKey = (await core.apiKeys.create('runtime', 'assistant runtime')).key;
  return {
    core,
    close,
    clientApi: core.serviceUrl('client-api'),
    assistantAuth,
    runtimeKey,
    api: `${core.serviceUrl('client-api')}/api/v1`,
    call: callJson,
    async linkedAssistant(accountNumber) {
      const { data } = makeCallbackParam(core, { identity: randomUUID(), channel: 'web', accountNumber });
      const linked = await callJson<{ assistantId: string }>(
        `${assistantAuth}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
      );
      assert.equal(linked.status, 201);
      return linked.body.assistantId;
    },
    async delegation(assistantId, scope) {
      const answer = await callJson<{ token: string }>(`${assistantAuth}/users/${assistantId}/delegations`, {
        method: 'POST',
        key: runtimeKey,
        body: { audience: 'client-api', ...(scope ? { scope } : {}) },
      });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      return answer.body.token;
    },
  };
}
