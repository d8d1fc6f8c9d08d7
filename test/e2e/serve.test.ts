import assert from 'node:assert/strict';
import { get } from 'node:http';
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
    const server = await startServe([], env, urls);
    const services = await Promise.all(
      urls.map(async (url) => (await (await fetch(`${url}/healthz`)).json()).service),
    );
    assert.deepEqual(services, ['client-api', 'assistant-auth', 'agents']);
    for (const url of urls) assert.ok(server.output().includes(url), `prints ${url}`);
    if (testDatabase === 'sqlite') assert.match(server.output(), /Demo credentials/);

    // Load: many concurrent requests; SIGTERM lands while they are in flight. Each on a connection of its
    // own: a request written on a kept-alive connection the server closes in that instant is reset by the
    // keep-alive race every HTTP client handles by sending again, not by the service (test/helpers/nginx.ts).
    const outcomes: string[] = [];
    const load = Array.from({ length: 400 }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, index % 40));
      outcomes.push(await statusOrCode(`${urls[index % 3]}/healthz`));
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

/** The answer's status, read to its end, or the error's code: a GET on a new connection (Connection: close). */
function statusOrCode(url: string): Promise<string> {
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error));
    get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(String(response.statusCode)));
      response.on('error', failed);
    }).on('error', failed);
  });
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
