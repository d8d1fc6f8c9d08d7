import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';
import {
  type AgentsStub,
  openStream,
  type StreamActivity,
  startAgentsStub,
} from './helpers/directline-stream.ts';
import { type ConversationAnswer, directLineCall } from './helpers/directline-wire.ts';

describe('embedded Direct Line channel (agents server stood in by a loopback stub)', () => {
  let stub: AgentsStub;
  let core: TestCore;
  let base: string;
  let apiKey: string;
  let close: () => Promise<void>;

  before(async () => {
    stub = await startAgentsStub();
    ({ core, close } = await startTestFamily(['assistant-auth'], {
      AGENTS_URL: `${stub.url}/`,
      DIRECTLINE_KEEPALIVE_MS: '150',
    }));
    base = core.serviceUrl('assistant-auth');
    apiKey = (await core.apiKeys.create('client', 'web-chat')).key;
  });
  after(async () => {
    await close();
    await stub.close();
  });

  const call = (method: string, path: string, bearer?: string, body?: unknown) =>
    directLineCall(base, method, path, { bearer, body });
  const tokenWss = async (): Promise<ConversationAnswer> => {
    const response = await fetch(`${base}/token/wss`, { headers: { 'x-api-key': apiKey } });
    assert.equal(response.status, 200);
    return (await response.json()) as ConversationAnswer;
  };
  const say = async (conversation: ConversationAnswer, text: string, from = { id: 'someone-else' }) => {
    const response = await call(
      'POST',
      `/v3/directline/conversations/${conversation.conversationId}/activities`,
      conversation.token,
      { type: 'message', text, from },
    );
    assert.equal(response.status, 200);
    return ((await response.json()) as { id: string }).id;
  };

  describe('happy', () => {
    it('/token/wss opens a conversation whose stream carries the message, typing and the agent’s answer', async () => {
      const conversation = await tokenWss();
      assert.match(
        conversation.streamUrl,
        /^ws:\/\/127\.0\.0\.1:\d+\/v3\/directline\/conversations\/[^/]+\/stream\?t=/,
      );
      assert.ok(conversation.expires_in > 0);
      const stream = await openStream(conversation.streamUrl);
      const id = await say(conversation, 'hello');
      assert.match(id, new RegExp(`^${conversation.conversationId}\\|\\d{7}$`));

      const answer = await stream.waitFor(
        (activity) => activity.replyToId === id && activity.type === 'message',
      );
      assert.equal(answer.text, 'echo: hello');
      assert.equal(answer.from.role, 'bot');
      const mine = stream.activities().find((activity) => activity.id === id);
      assert.ok(mine, 'the user’s own message is on the stream');
      assert.equal(mine.text, 'hello');
      assert.match(mine.from.id, /^dl_/, 'from.id is the token’s user, not what the client claimed');
      assert.ok(
        stream.activities().some((activity) => activity.type === 'typing' && activity.replyToId === id),
      );
      assert.ok(stream.sets.every((set) => set.activities.length > 0));

      // The agents server got the message as the assistant, with a JWT the assistant signed for it.
      const agentCall = stub.calls.at(-1);
      assert.equal(agentCall?.name, 'assistant');
      assert.deepEqual(agentCall?.body, { input: 'hello', conversationId: conversation.conversationId });
      const jwt = agentCall?.authorization?.replace(/^Bearer /, '') ?? '';
      const jwks = createRemoteJWKSet(new URL(`${base}/openid/jwk`));
      const { payload } = await jwtVerify(jwt, jwks, { audience: 'sintonia-agents' });
      assert.equal(payload.sub, mine.from.id);

      // Polling clients see the same conversation, typing excepted.
      const polled = await call(
        'GET',
        `/v3/directline/conversations/${conversation.conversationId}/activities`,
        conversation.token,
      );
      assert.equal(polled.status, 200);
      const set = (await polled.json()) as { activities: StreamActivity[]; watermark: string };
      assert.deepEqual(
        set.activities.map((activity) => [activity.type, activity.text]),
        [
          ['message', 'hello'],
          ['message', 'echo: hello'],
        ],
      );
      assert.equal(set.watermark, '2');
      await stream.close();
    });

    it('tokens/generate takes only the secret (from `sintonia directline-secret`); conversations answers 201 then 200; refresh keeps the binding', async () => {
      const printed = await runCli(['directline-secret'], core.env);
      assert.equal(printed.code, 0, printed.stderr);
      const { secret } = JSON.parse(printed.stdout) as { secret: string };
      const generated = await call('POST', '/v3/directline/tokens/generate', secret, {
        user: { id: 'dl_alice' },
      });
      assert.equal(generated.status, 200);
      const token = (await generated.json()) as { conversationId: string; token: string; expires_in: number };
      assert.equal(token.expires_in, 3600);

      const started = await call('POST', '/v3/directline/conversations', token.token, {});
      assert.equal(started.status, 201);
      const first = (await started.json()) as ConversationAnswer;
      assert.equal(first.conversationId, token.conversationId);
      const again = await call('POST', '/v3/directline/conversations', token.token, {});
      assert.equal(again.status, 200);
      assert.equal(((await again.json()) as ConversationAnswer).conversationId, token.conversationId);

      const refreshed = await call('POST', '/v3/directline/tokens/refresh', token.token);
      assert.equal(refreshed.status, 200);
      const fresh = (await refreshed.json()) as { conversationId: string; token: string };
      assert.equal(fresh.conversationId, token.conversationId);
      assert.notEqual(fresh.token, token.token);
      const conversation = { ...first, token: fresh.token };
      const id = await say(conversation, 'who am i', { id: 'dl_mallory' });
      const listed = await call(
        'GET',
        `/v3/directline/conversations/${token.conversationId}/activities`,
        fresh.token,
      );
      const activities = ((await listed.json()) as { activities: StreamActivity[] }).activities;
      assert.equal(activities.find((activity) => activity.id === id)?.from.id, 'dl_alice');

      const tokenGenerates = await call('POST', '/v3/directline/tokens/generate', fresh.token, {});
      assert.equal(tokenGenerates.status, 403);
      assert.equal(
        ((await tokenGenerates.json()) as { errors: Array<{ type: string }> }).errors[0]?.type,
        'DIRECTLINE_SECRET_REQUIRED',
      );
      const secretRefreshes = await call('POST', '/v3/directline/tokens/refresh', secret);
      assert.equal(secretRefreshes.status, 403);
    });

    it('questions asked at once are answered one at a time, in their order, each watermark once', async () => {
      const conversation = await tokenWss();
      const stream = await openStream(conversation.streamUrl);
      const ids = await Promise.all(['a', 'b', 'c'].map((text) => say(conversation, text)));
      const last = ids.reduce((latest, id) => (id > latest ? id : latest));
      await stream.waitFor((activity) => activity.replyToId === last && activity.type === 'message');
      const ordered = [...ids].sort();
      const messages = stream.activities().filter((activity) => activity.type === 'message');
      const answers = messages.filter((activity) => activity.from.role === 'bot');
      assert.deepEqual(
        answers.map((activity) => activity.replyToId),
        ordered,
      );
      const watermarks = stream.sets.flatMap((set) => (set.watermark ? [Number(set.watermark)] : []));
      assert.deepEqual(
        watermarks,
        [...watermarks].sort((x, y) => x - y),
        'watermarks only grow',
      );
      assert.equal(messages.length, 6, 'three questions, three answers');
      assert.equal(new Set(messages.map((activity) => activity.id)).size, 6, 'each activity pushed once');
      await stream.close();
    });

    it('an idle stream gets empty keep-alive messages and stays open', async () => {
      const conversation = await tokenWss();
      const stream = await openStream(conversation.streamUrl);
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.ok(stream.keepAlives >= 2, `keep-alives: ${stream.keepAlives}`);
      assert.deepEqual(stream.sets, [], 'a new conversation has nothing to push');
      assert.equal(stream.socket.readyState, stream.socket.OPEN);
      await stream.close();
    });
  });

  describe('errors', () => {
    it('a second socket on the same conversation is closed as a collision', async () => {
      const conversation = await tokenWss();
      const first = await openStream(conversation.streamUrl);
      const second = await openStream(conversation.streamUrl);
      const closed = await second.closed;
      assert.deepEqual(closed, { code: 4009, reason: 'collision' });
      assert.equal(first.socket.readyState, first.socket.OPEN);
      await first.close();
    });

    it('the agents server answering 429 shows up as a bot activity carrying the family error body', async () => {
      const body = {
        code: 'TOO_MANY_REQUESTS',
        message: 'Rate limit error. (rate_limit_exceeded) Service: model',
        errors: [
          {
            type: 'AGENT_RATE_LIMIT_ERROR',
            message: 'Rate limit error. (rate_limit_exceeded) Service: model',
          },
        ],
      };
      stub.answer = () => ({ status: 429, headers: { 'retry-after': '7' }, body });
      try {
        const conversation = await tokenWss();
        const stream = await openStream(conversation.streamUrl);
        const id = await say(conversation, 'hello again');
        const answer = await stream.waitFor(
          (activity) => activity.replyToId === id && activity.type === 'message',
        );
        assert.deepEqual(answer.value, body);
        assert.deepEqual(answer.channelData, { error: { status: 429, retryAfter: '7' } });
        // At a limit the person is told plainly to wait, and how long; the technical message is in `value`.
        assert.equal(
          answer.text,
          'The assistant is getting more messages than it can answer right now. Please wait 7 seconds and send your message again.',
        );
        await stream.close();
      } finally {
        stub.answer = (agentCall) => ({
          status: 200,
          body: { output: `echo: ${agentCall.body.input ?? ''}` },
        });
      }
    });

    // Last: it stops the stub.
    it('an unreachable agents server is a 502 SUBSYSTEM_ERROR activity, never silence', async () => {
      await stub.close();
      const conversation = await tokenWss();
      const stream = await openStream(conversation.streamUrl);
      const id = await say(conversation, 'anyone there?');
      const answer = await stream.waitFor(
        (activity) => activity.replyToId === id && activity.type === 'message',
      );
      assert.equal((answer.value as { code: string }).code, 'BAD_GATEWAY');
      assert.equal((answer.value as { errors: Array<{ type: string }> }).errors[0]?.type, 'SUBSYSTEM_ERROR');
      assert.deepEqual(answer.channelData, { error: { status: 502 } });
      await stream.close();
    });
  });
});
