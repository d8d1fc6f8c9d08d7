import { loadConfig } from '../../src/core/config.ts';
import { type Core, openCore } from '../../src/core/core.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import type { Env } from './harness.ts';

export interface Running {
  core: Core;
  family: RunningFamily;
  clientApi: string;
  assistantAuth: string;
  close(): Promise<void>;
}

/** client-api and assistant-auth on free ports, in this process, with the environment `env`. */
export async function serveInProcess(env: Env): Promise<Running> {
  const core = await openCore(loadConfig(env as NodeJS.ProcessEnv));
  const family = await startFamily(core, ['client-api', 'assistant-auth']);
  return {
    core,
    family,
    clientApi: `${core.serviceUrl('client-api')}/api/v1`,
    assistantAuth: core.serviceUrl('assistant-auth'),
    async close() {
      await family.close();
      await core.close();
    },
  };
}

/**
 * One request, as a well-behaved client makes it: a 503 STORE_UNAVAILABLE (on SQLite, the rotation's
 * transaction holding the store's write lock past the busy timeout on a loaded machine) is retried after
 * a pause, a few times; anything else is answered as it comes.
 */
export async function call(
  url: string,
  init: { method?: string; key?: string; token?: string; body?: unknown } = {},
) {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await callOnce(url, init);
    const type = (answer.body.errors as Array<{ type?: string }> | undefined)?.[0]?.type;
    if (answer.status !== 503 || type !== 'STORE_UNAVAILABLE' || attempt >= 20) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function callOnce(
  url: string,
  init: { method?: string; key?: string; token?: string; body?: unknown },
) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.key ? { 'x-api-key': init.key } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}
