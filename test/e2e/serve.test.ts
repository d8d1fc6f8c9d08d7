import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore, testDatabase } from '../helpers/harness.ts';
import { freePort, startServe } from '../helpers/processes.ts';

describe('sintonia serve', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
    // The CLI process migrates and serves on its own; this core only provides the store and env.
  });
  after(() => core.dispose());

  it('starts all three services, prints how to call them, and stops gracefully under load', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const urls = ports.map((port) => `http://127.0.0.1:${port}`);
    const env = {
      ...core.env,
      CLIENT_API_PORT: String(ports[0]),
      ASSISTANT_AUTH_PORT: String(ports[1]),
      AGENTS_PORT: String(ports[2]),
      LOG_LEVEL: 'warn',
    };
    const started = Date.now();
    const server = await startServe([], env, urls);
    assert.ok(Date.now() - started < 30_000);
    const services = await Promise.all(
      urls.map(async (url) => (await (await fetch(`${url}/healthz`)).json()).service),
    );
    assert.deepEqual(services, ['client-api', 'assistant-auth', 'agents']);
    for (const url of urls) assert.ok(server.output().includes(url), `prints ${url}`);
    if (testDatabase === 'sqlite') assert.match(server.output(), /Demo credentials/);

    // Load: many concurrent requests; SIGTERM lands while they are in flight.
    const outcomes: string[] = [];
    const load = Array.from({ length: 400 }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, index % 40));
      try {
        const response = await fetch(`${urls[index % 3]}/healthz`);
        await response.text();
        outcomes.push(String(response.status));
      } catch (error) {
        const code = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
        outcomes.push(code);
      }
    });
    setTimeout(() => server.child.kill('SIGTERM'), 15);
    await Promise.all(load);
    const exitCode = await server.exited;
    assert.equal(exitCode, 0, server.output());
    // A request is either answered completely (200, or 503 while closing) or refused before it was
    // accepted; none is cut off half-way (ECONNRESET, socket hang-up).
    const unexpected = outcomes.filter((outcome) => !['200', '503', 'ECONNREFUSED'].includes(outcome));
    assert.deepEqual(unexpected, [], `outcomes: ${JSON.stringify(countBy(outcomes))}`);
    assert.ok(outcomes.includes('200'));
  });
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
