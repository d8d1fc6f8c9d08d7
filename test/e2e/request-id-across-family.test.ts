import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { linkedChat } from '../helpers/assistant-chat.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { freePort, startServe } from '../helpers/processes.ts';

const BASE = '/api/v1';
type Line = Record<string, unknown>;

/**
 * With tracing off, the request id is what ties a chat message's lines together: assistant-auth's POST of
 * the message, the agents' run and the client-api operation the tool call makes all log the same one
 * (the services send it on as X-Request-Id), and every line a service writes while serving it carries it.
 */
describe('one request id across the family, tracing off', () => {
  let core: TestCore;
  let served: Awaited<ReturnType<typeof startServe>>;
  const urls: Record<'client-api' | 'assistant-auth' | 'agents', string> = {
    'client-api': '',
    'assistant-auth': '',
    agents: '',
  };
  let gatewayKey: string;

  before(async () => {
    core = await createTestCore();
    const ports = {
      'client-api': await freePort(),
      'assistant-auth': await freePort(),
      agents: await freePort(),
    };
    for (const name of Object.keys(urls) as Array<keyof typeof urls>) {
      urls[name] = `http://127.0.0.1:${ports[name]}`;
    }
    gatewayKey = (await core.apiKeys.create('gateway', 'gateway')).key;
    served = await startServe(
      [],
      {
        ...core.env,
        CLIENT_API_PORT: String(ports['client-api']),
        ASSISTANT_AUTH_PORT: String(ports['assistant-auth']),
        AGENTS_PORT: String(ports.agents),
        ASSISTANT_RUNTIME_KEY: (await core.apiKeys.create('runtime', 'agents runtime')).key,
        SINTONIA_DEMO: '0',
        LOG_LEVEL: 'info',
      },
      Object.values(urls),
      60_000,
    );
  });
  after(async () => {
    served.child.kill('SIGTERM');
    await served.exited;
    await core.dispose();
  });

  const lines = (): Line[] =>
    served
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line);

  it('the message, the agent run and the device sign-out it causes log one request id', async () => {
    await signedInHousehold(core, `${urls['client-api']}${BASE}`, {
      accountNumber: 'RQI-1001',
      email: 'rqi-1001@example.test',
      devices: [['RQI-1001-bed', 'Bedroom TV']],
    });
    const chat = await linkedChat(core, urls['assistant-auth'], gatewayKey, randomUUID(), 'RQI-1001');
    assert.match((await chat.say('sign out the bedroom tv')).text ?? '', /sign «Bedroom TV» out/);
    assert.match((await chat.say('Yes')).text ?? '', /Bedroom TV/);

    const completed = lines().filter((line) => line.msg === 'request completed');
    const signOut = completed.find(
      (line) =>
        line.service === 'client-api' &&
        line.method === 'DELETE' &&
        /\/devices\/RQI-1001-bed\/sessions$/.test(String(line.url)),
    );
    assert.ok(signOut, `client-api's sign-out line: ${JSON.stringify(completed.slice(-8))}`);
    const id = signOut.requestId;
    assert.equal(typeof id, 'string');
    const ofId = completed.filter((line) => line.requestId === id);
    const where = ofId.map((line) => `${line.service} ${line.method} ${line.url}`);
    assert.ok(
      ofId.some(
        (line) =>
          line.service === 'assistant-auth' &&
          line.method === 'POST' &&
          /\/activities$/.test(String(line.url)),
      ),
      `assistant-auth's POST of the "Yes" has the id: ${where.join('; ')}`,
    );
    assert.ok(
      ofId.some((line) => line.service === 'agents' && /^\/agents\/[^/]+\/stream$/.test(String(line.url))),
      `the agents' run has the id: ${where.join('; ')}`,
    );
    // The first message has an id of its own, which the agents' request for a delegated token (its first
    // account action) carried to assistant-auth.
    const messages = completed.filter(
      (line) => line.service === 'assistant-auth' && /\/activities$/.test(String(line.url)),
    );
    const first = messages.find((line) => line.requestId !== id);
    assert.ok(first, `two messages, two ids: ${messages.map((line) => line.requestId).join(', ')}`);
    assert.ok(
      completed.some(
        (line) =>
          line.requestId === first.requestId &&
          line.service === 'assistant-auth' &&
          /\/users\/[^/]+\/delegations$/.test(String(line.url)),
      ),
      'the delegation asked for the first message carries its id',
    );
  });
});

describe('the answer to a message logs the request id of the message', () => {
  let core: TestCore;
  let served: Awaited<ReturnType<typeof startServe>>;
  let url: string;
  let gatewayKey: string;

  before(async () => {
    core = await createTestCore();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    gatewayKey = (await core.apiKeys.create('gateway', 'gateway')).key;
    served = await startServe(
      ['--service', 'assistant-auth'],
      {
        ...core.env,
        ASSISTANT_AUTH_PORT: String(port),
        // Nobody listens there: the answer's agent call fails, in the background, after the POST answered.
        AGENTS_URL: `http://127.0.0.1:${await freePort()}`,
        SINTONIA_DEMO: '0',
        LOG_LEVEL: 'info',
      },
      [url],
      60_000,
    );
  });
  after(async () => {
    served.child.kill('SIGTERM');
    await served.exited;
    await core.dispose();
  });

  it('the failed agent call’s line carries the id of the POST that brought the message', async () => {
    const chat = await linkedChat(core, url, gatewayKey, randomUUID(), 'RQI-2001', {
      'x-request-id': 'rqi-message-1',
    });
    const answer = await chat.say('hello');
    assert.match(answer.text ?? '', /could not answer/);
    const failed = served
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line)
      .filter((line) => line.level === 40 && /agents server/.test(String(line.msg)));
    assert.ok(failed.length > 0, served.output().slice(-2000));
    assert.deepEqual(
      failed.map((line) => line.requestId),
      failed.map(() => 'rqi-message-1'),
    );
  });
});
