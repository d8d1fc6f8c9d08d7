import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type DirectLineOptions, directLineJs } from '../helpers/directline-js.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';
import { driveDirectLine } from './helpers/directline-client.ts';
import { sendAgentAnswer } from './helpers/directline-stream.ts';
import {
  type ConversationAnswer,
  directLineCall,
  type ErrorBody,
  type SeenActivity,
} from './helpers/directline-wire.ts';

const { DirectLine } = await directLineJs();

const claims = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

describe('embedded Direct Line as Web Chat and DirectLineJS speak it', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let base: string;
  let apiKey: string;
  let secret: string;

  before(async () => {
    ({ core, close } = await startTestFamily(['assistant-auth', 'agents']));
    base = core.serviceUrl('assistant-auth');
    apiKey = (await core.apiKeys.create('client', 'web-chat')).key;
    secret = core.key('directline-secret').toString('base64url');
  });
  after(async () => close());

  const call = (method: string, path: string, authorization?: string, body?: unknown) =>
    directLineCall(base, method, path, { headers: { origin: 'https://shop.example' }, authorization, body });

  async function fromChannel(path: '/token' | '/token/wss'): Promise<ConversationAnswer> {
    const response = await fetch(`${base}${path}`, { headers: { 'x-api-key': apiKey } });
    assert.equal(response.status, 200);
    return (await response.json()) as ConversationAnswer;
  }

  /** A DirectLineJS client on the embedded channel, with the user id a page would give it. */
  function client(options: { token?: string; secret?: string }, userId: string) {
    const directLine = new DirectLine({
      ...options,
      domain: `${base}/v3/directline`,
      webSocket: true,
      timeout: 2000,
      random: () => 0,
    } as DirectLineOptions);
    const warn = console.warn;
    console.warn = () => {}; // DirectLineJS warns when the token already names the user: expected here.
    try {
      directLine.setUserId(userId);
    } finally {
      console.warn = warn;
    }
    return driveDirectLine(directLine, userId);
  }

  describe('happy', () => {
    it('tokens carry the user in the `user` claim, as Direct Line’s own tokens do', async () => {
      for (const path of ['/token', '/token/wss'] as const) {
        const payload = claims((await fromChannel(path)).token);
        assert.match(String(payload.user), /^dl_/, path);
        assert.equal(payload.user, payload.sub, path);
      }
      const refreshed = await call(
        'POST',
        '/v3/directline/tokens/refresh',
        `Bearer ${(await fromChannel('/token')).token}`,
      );
      assert.equal(refreshed.status, 200);
      assert.match(String(claims(((await refreshed.json()) as ConversationAnswer).token).user), /^dl_/);
    });

    it('POST /conversations with a token takes the body Web Chat sends and keeps the token’s user', async () => {
      const issued = await fromChannel('/token');
      const user = claims(issued.token).user;
      for (const body of [
        { user: { id: 'r_k3l4m5n6o7' }, locale: 'es-ES' },
        { user: {}, locale: 'en-US' },
        {},
      ]) {
        const response = await call('POST', '/v3/directline/conversations', `Bearer ${issued.token}`, body);
        assert.ok([200, 201].includes(response.status), JSON.stringify(body));
        const answer = (await response.json()) as ConversationAnswer;
        assert.equal(answer.conversationId, issued.conversationId);
        assert.equal(claims(answer.token).user, user, 'the body does not change who the token speaks for');
      }
      const posted = await call(
        'POST',
        `/v3/directline/conversations/${issued.conversationId}/activities`,
        `Bearer ${issued.token}`,
        { type: 'message', from: { id: 'r_k3l4m5n6o7' }, text: 'hola' },
      );
      assert.equal(posted.status, 200);
      const listed = await call(
        'GET',
        `/v3/directline/conversations/${issued.conversationId}/activities`,
        `Bearer ${issued.token}`,
      );
      const { activities } = (await listed.json()) as { activities: SeenActivity[] };
      assert.equal(activities[0]?.from.id, user);
    });

    it('POST /conversations with the secret starts a conversation for the user the body names', async () => {
      const response = await call('POST', '/v3/directline/conversations', `Bearer ${secret}`, {
        user: { id: 'r_webchat1' },
      });
      assert.equal(response.status, 201);
      assert.equal(claims(((await response.json()) as ConversationAnswer).token).user, 'r_webchat1');
      const bad = await call('POST', '/v3/directline/conversations', `Bearer ${secret}`, {
        user: { id: 'has spaces <script>' },
      });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as ErrorBody).errors[0]?.type, 'VALIDATION_ERROR');
    });

    it('DirectLineJS with setUserId and a token: the token’s user speaks, the assistant answers', async () => {
      const issued = await fromChannel('/token');
      const chat = client({ token: issued.token }, 'r_pageuser');
      try {
        const id = await chat.send('hello');
        assert.ok(id.startsWith(`${issued.conversationId}|`));
        const answer = await chat.answerTo(id);
        assert.equal(answer.from.role, 'bot');
        assert.ok(answer.text);
        const mine = chat.seen.find((activity) => activity.id === id);
        assert.equal(mine?.from.id, claims(issued.token).user);
      } finally {
        chat.stop();
      }
    });

    it('DirectLineJS with setUserId and the secret: the conversation is that user’s', async () => {
      const chat = client({ secret }, 'web-user-7');
      try {
        const id = await chat.send('hola');
        await chat.answerTo(id);
        assert.equal(chat.seen.find((activity) => activity.id === id)?.from.id, 'web-user-7');
      } finally {
        chat.stop();
      }
    });

    it('every answer under /v3/directline carries the CORS headers: successes, refusals, 404, 405 and preflights', async () => {
      const issued = await fromChannel('/token/wss');
      const id = issued.conversationId;
      const bearer = `Bearer ${issued.token}`;
      const answers: Array<[string, Response, number]> = [
        ['start', await call('POST', '/v3/directline/conversations', bearer, {}), 200],
        ['read', await call('GET', `/v3/directline/conversations/${id}/activities`, bearer), 200],
        ['no credentials', await call('GET', `/v3/directline/conversations/${id}/activities`), 401],
        ['forged', await call('GET', `/v3/directline/conversations/${id}/activities`, 'Bearer x.y.z'), 403],
        [
          'bad body',
          await call('POST', `/v3/directline/conversations/${id}/activities`, bearer, { type: 5 }),
          400,
        ],
        [
          'unknown conversation',
          await call('GET', '/v3/directline/conversations/AAAAAAAAAAAAAAAAAAAAAA', `Bearer ${secret}`),
          404,
        ],
        ['unknown path', await call('GET', '/v3/directline/nothing/here', bearer), 404],
        ['wrong method', await call('GET', '/v3/directline/tokens/generate', bearer), 405],
        [
          'wrong method on a conversation',
          await call('DELETE', `/v3/directline/conversations/${id}`, bearer),
          405,
        ],
      ];
      for (const [label, response, status] of answers) {
        assert.equal(response.status, status, label);
        assert.equal(response.headers.get('access-control-allow-origin'), '*', label);
        assert.match(response.headers.get('access-control-expose-headers') ?? '', /x-request-id/, label);
        if (status >= 400) {
          const body = (await response.json()) as ErrorBody;
          assert.equal(typeof body.code, 'string', label);
          assert.equal(typeof body.errors[0]?.type, 'string', label);
        }
      }
      for (const path of [
        '/v3/directline/conversations',
        `/v3/directline/conversations/${id}/activities`,
        `/v3/directline/conversations/${id}/upload?userId=r_x`,
        '/v3/directline/tokens/refresh',
      ]) {
        const preflight = await fetch(`${base}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://shop.example',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type, x-ms-bot-agent',
          },
        });
        assert.equal(preflight.status, 204, path);
        assert.equal(preflight.headers.get('access-control-allow-origin'), '*', path);
        const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
        for (const header of ['authorization', 'content-type', 'x-ms-bot-agent']) {
          assert.ok(allowed.includes(header), `${path} allows ${header}`);
        }
        assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/, path);
      }
    });
  });
});

describe('embedded Direct Line: what the agent answers besides text reaches the activity', () => {
  let agents: Server;
  let core: TestCore;
  let close: () => Promise<void>;
  let base: string;
  let secret: string;
  /** What the fake agents server answers next, and what it was asked. */
  let next: { status: number; body: unknown } = { status: 200, body: {} };
  const asked: unknown[] = [];

  before(async () => {
    agents = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk) => {
        raw += chunk;
      });
      request.on('end', () => {
        asked.push(JSON.parse(raw));
        sendAgentAnswer(response, request.url?.endsWith('/stream') ? 'stream' : 'invoke', next);
      });
    });
    await new Promise<void>((resolve) => agents.listen(0, '127.0.0.1', resolve));
    const { port } = agents.address() as AddressInfo;
    ({ core, close } = await startTestFamily(['assistant-auth'], { AGENTS_URL: `http://127.0.0.1:${port}` }));
    base = core.serviceUrl('assistant-auth');
    secret = core.key('directline-secret').toString('base64url');
  });
  after(async () => {
    await close();
    await new Promise((resolve) => agents.close(resolve));
  });

  async function say(text: string): Promise<SeenActivity & Record<string, unknown>> {
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    const started = await fetch(`${base}/v3/directline/conversations`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    const { conversationId } = (await started.json()) as ConversationAnswer;
    const path = `${base}/v3/directline/conversations/${conversationId}/activities`;
    const posted = await fetch(path, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'message', text, locale: 'es-ES' }),
    });
    const { id } = (await posted.json()) as { id: string };
    return until(async () => {
      const listed = (await (await fetch(path, { headers })).json()) as {
        activities: Array<SeenActivity & Record<string, unknown>>;
      };
      return listed.activities.find((activity) => activity.replyToId === id);
    }, 'the answer');
  }

  describe('happy', () => {
    it('carries suggestedActions and attachments from the invoke answer to the bot activity', async () => {
      const suggestedActions = {
        actions: [
          { type: 'imBack', title: 'Sí', value: 'sí' },
          { type: 'imBack', title: 'No', value: 'no' },
        ],
      };
      const attachments = [
        {
          contentType: 'application/vnd.microsoft.card.hero',
          content: { title: 'Salón', text: 'Decodificador' },
        },
      ];
      next = {
        status: 200,
        body: { agent: 'assistant', output: '¿Desactivo el salón?', suggestedActions, attachments },
      };
      const answer = await say('desactiva el salón');
      assert.equal(answer.text, '¿Desactivo el salón?');
      assert.deepEqual(answer.suggestedActions, suggestedActions);
      assert.deepEqual(answer.attachments, attachments);
      const call = asked.at(-1) as { input: string; locale?: string };
      assert.equal(call.input, 'desactiva el salón');
      assert.equal(call.locale, 'es-ES', 'the agent hears the user’s locale');
    });
  });

  describe('errors', () => {
    it('keeps the agents’ error contract, and refuses malformed suggestedActions as a subsystem failure', async () => {
      const body = {
        code: 'TOO_MANY_REQUESTS',
        message: 'Slow down.',
        errors: [{ type: 'AGENT_RATE_LIMIT', message: 'Slow down.' }],
      };
      next = { status: 429, body };
      const limited = await say('hola');
      assert.deepEqual(limited.value, body);
      assert.equal(limited.suggestedActions, undefined);

      next = { status: 200, body: { agent: 'assistant', output: 'x', suggestedActions: { actions: 'yes' } } };
      const garbled = await say('hola');
      assert.equal((garbled.value as ErrorBody).errors[0]?.type, 'SUBSYSTEM_ERROR');
      assert.equal(garbled.suggestedActions, undefined);
    });
  });
});
