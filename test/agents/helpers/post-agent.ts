import type { App } from '../../../src/core/http/service-app.ts';

/** An agents server under test and the key headers its caller sends. */
export interface AgentsTarget {
  readonly app: App;
  readonly headers: Record<string, string>;
}

/** POSTs `payload` to an agents route (`/agents/{name}/invoke` or `/stream`) with the target's key. */
export function postAgent(target: AgentsTarget, url: string, payload: unknown) {
  return target.app.inject({ method: 'POST', url, headers: target.headers, payload: payload as object });
}
