import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { createAssistantSigner } from '../../src/assistant-auth/signing/signer.ts';
import { buildServiceApp } from '../../src/core/http/service-app.ts';
import { type RunningFamily, services } from '../../src/family.ts';
import { type DirectLineOptions, directLineJs } from '../helpers/directline-js.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { driveDirectLine } from './helpers/directline-client.ts';

/** Every stream the client opens, so the test can tell it really talks over the WebSocket. */
const opened: string[] = [];
class ObservedWebSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    opened.push(url);
  }
}
const { DirectLine } = await directLineJs(ObservedWebSocket);

interface WssAnswer {
  conversationId: string;
  token: string;
  expires_in: number;
  streamUrl: string;
}

describe('botframework-directlinejs against the embedded channel and the real agents server', () => {
  let core: TestCore;
  let family: RunningFamily;
  let close: () => Promise<void>;
  let apiKey: string;

  before(async () => {
    ({ core, family, close } = await startTestFamily(['assistant-auth', 'agents']));
    apiKey = (await core.apiKeys.create('client', 'web-chat')).key;
  });
  after(async () => close());

  /** What the `assistant` agent answers to this input when asked directly, as the assistant. */
  async function agentAnswer(input: string): Promise<string> {
    const jwt = await createAssistantSigner(core).sign({ sub: 'test' }, { audience: 'sintonia-agents' });
    const response = await fetch(`${family.url('agents')}/agents/assistant/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { output: string }).output;
  }

  /** A client from /token/wss (conversation started, streamUrl given) or from /token (it starts it). */
  async function connect(from: '/token/wss' | '/token' = '/token/wss') {
    const response = await fetch(`${family.url('assistant-auth')}${from}`, {
      headers: { 'x-api-key': apiKey },
    });
    assert.equal(response.status, 200);
    const wss = (await response.json()) as WssAnswer;
    const directLine = new DirectLine({
      token: wss.token,
      ...(from === '/token/wss' ? { conversationId: wss.conversationId, streamUrl: wss.streamUrl } : {}),
      domain: `${family.url('assistant-auth')}/v3/directline`,
      webSocket: true,
      timeout: 2000,
      // The client waits 3 to 15 s before reconnecting a dropped socket; 0 here picks the 3 s.
      random: () => 0,
    } as DirectLineOptions);
    return { wss, ...driveDirectLine(directLine, 'dl_web-user') };
  }

  describe('happy', () => {
    it('a client started from /token/wss sends "hello" and gets the assistant agent’s answer over the WebSocket', async () => {
      const expected = await agentAnswer('hello');
      opened.length = 0;
      const client = await connect();
      try {
        const id = await client.send('hello');
        const answer = await client.answerTo(id);
        assert.equal(answer.text, expected);
        assert.equal(answer.from.role, 'bot');
        assert.deepEqual(opened, [client.wss.streamUrl], 'one socket, on the streamUrl /token/wss returned');
        const echoed = client.seen.find((activity) => activity.id === id);
        assert.equal(echoed?.text, 'hello');
      } finally {
        client.stop();
      }
    });

    it('after the server drops the socket (a restart), the client reconnects with its watermark and misses nothing', async () => {
      const client = await connect();
      try {
        const first = await client.send('hello');
        await client.answerTo(first);

        // Restart assistant-auth on the same port: every socket drops, the store keeps everything.
        const index = family.services.findIndex((service) => service.name === 'assistant-auth');
        const running = family.services[index];
        assert.ok(running);
        const port = Number(new URL(running.url).port);
        await running.app.close();
        const app = await buildServiceApp(core, services['assistant-auth']);
        await app.listen({ host: core.config.HOST, port });
        family.services[index] = { ...running, app };

        // Said while the client is away (it waits 3 s before reconnecting): it must still arrive.
        const missed = await fetch(
          `${running.url}/v3/directline/conversations/${client.wss.conversationId}/activities`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${client.wss.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ type: 'message', text: 'what did I miss?' }),
          },
        );
        assert.equal(missed.status, 200);
        const missedId = ((await missed.json()) as { id: string }).id;
        const answer = await client.answerTo(missedId);
        assert.equal(answer.text, await agentAnswer('what did I miss?'));
        const ids = client.seen
          .filter((activity) => activity.type === 'message')
          .map((activity) => activity.id);
        assert.equal(new Set(ids).size, ids.length, 'no activity delivered twice');
        assert.equal(ids.length, 4);
        const next = await client.send('hello');
        await client.answerTo(next);
      } finally {
        client.stop();
      }
    });

    it('a client started from a /token token starts the conversation itself and talks the same way', async () => {
      opened.length = 0;
      const client = await connect('/token');
      try {
        const id = await client.send('hello');
        assert.ok(id.startsWith(`${client.wss.conversationId}|`), 'the conversation the token was bound to');
        const answer = await client.answerTo(id);
        assert.equal(answer.text, await agentAnswer('hello'));
        assert.equal(opened.length, 1);
        assert.match(
          opened[0] ?? '',
          new RegExp(`/v3/directline/conversations/${client.wss.conversationId}/stream\\?t=`),
        );
      } finally {
        client.stop();
      }
    });
  });
});
