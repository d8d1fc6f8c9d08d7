import { spawnSync } from 'node:child_process';
import type { ApiKeyStore } from '../../src/core/api-keys/api-keys.ts';

const keys = new WeakMap<ApiKeyStore, Promise<string>>();

/** A key to read /metrics with (any valid key of the environment does), made once per store. */
export function scrapeKey(core: { apiKeys: ApiKeyStore }): Promise<string> {
  let key = keys.get(core.apiKeys);
  if (key === undefined) {
    key = core.apiKeys.create('backoffice', 'prometheus').then((made) => made.key);
    keys.set(core.apiKeys, key);
  }
  return key;
}

/** A service's /metrics, as Prometheus reads it: with a key of `core`'s store, as a bearer credential. */
export async function scrape(core: { apiKeys: ApiKeyStore }, serviceUrl: string): Promise<string> {
  const response = await fetch(`${serviceUrl}/metrics`, {
    headers: { authorization: `Bearer ${await scrapeKey(core)}` },
  });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}

/** An app's /metrics through `inject`, read with a key of `core`'s store (X-API-Key). */
export async function injectedMetrics(
  app: { inject(request: { url: string; headers: Record<string, string> }): Promise<{ body: string }> },
  core: { apiKeys: ApiKeyStore },
): Promise<string> {
  return (await app.inject({ url: '/metrics', headers: { 'x-api-key': await scrapeKey(core) } })).body;
}

/**
 * The sum of the samples of `name` whose labels include `labels` (undefined when there is none): what
 * `sum(name{labels})` would say of this one scrape.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [
        pair[1],
        pair[2],
      ]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      sum = (sum ?? 0) + Number(match[3]);
    }
  }
  return sum;
}

/** `promtool check metrics` on a scrape: what it complains of ('' when the exposition is clean). */
export function promtoolCheck(text: string): string {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error) throw run.error;
  return `${run.stdout}${run.stderr}`.trim() + (run.status === 0 ? '' : `\n(exit ${run.status})`);
}
