import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { createDirectLineRepository } from '../../src/assistant-auth/directline/repository.ts';
import type { Activity } from '../../src/assistant-auth/directline/schemas.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { createTestApp, startTestFamily, type TestCore } from '../helpers/harness.ts';
import { type AgentsStub, startAgentsStub } from './helpers/directline-stream.ts';
import { directLineJson } from './helpers/directline-wire.ts';
import { type FakeDirectLine, startFakeDirectLine } from './helpers/fake-directline.ts';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}
interface TokenAnswer {
  conversationId: string;
  token: string;
  streamUrl?: string;
}
type ErrorAnswer = { code: string; errors: Array<{ type: string; message: string }> };

describe('conversations bound to a person (/token and /token/wss with a channel identity)', () => {
  let stub: AgentsStub;
  let core: TestCore;
  let close: () => Promise<void>;
  let base: string;
  const keys: Record<'runtime' | 'gateway' | 'client' | 'backoffice', string> = {
    runtime: '',
    gateway: '',
    client: '',
    backoffice: '',
  };
  let claimsOf: (authorization: string | undefined) => Promise<JWTPayload>;

  before(async () => {
    stub = await startAgentsStub();
    ({ core, close } = await startTestFamily(['assistant-auth'], { AGENTS_URL: stub.url }));
    base = core.serviceUrl('assistant-auth');
    for (const keyClass of ['runtime', 'gateway', 'client', 'backoffice'] as const) {
      keys[keyClass] = (await core.apiKeys.create(keyClass, `binding-${keyClass}`)).key;
    }
    // What the agents server would accept: signed by the assistant, for the agents' audience.
    const jwks = createRemoteJWKSet(new URL(`${base}/openid/jwk`));
    claimsOf = async (authorization) => {
      const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
      return (await jwtVerify(token, jwks, { audience: 'sintonia-agents' })).payload;
    };
  });
  after(async () => {
    await close();
    await stub.close();
  });

  const identity = (channel = 'whatsapp') => ({
    'x-channel': channel,
    'x-channel-user-id': `user-${randomUUID()}`,
  });
  const get = async (path: string, headers: Record<string, string>): Promise<Answer> => {
    const response = await fetch(`${base}${path}`, { headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const directLine = (method: string, path: string, token: string, body?: unknown) =>
    directLineJson(base, method, `/v3/directline${path}`, token, body);
  /** Says `text` in the conversation and returns the claims of the JWT the agent was called with. */
  const claimsOfTurn = async (conversationId: string, token: string, text = randomUUID()) => {
    const posted = await directLine('POST', `/conversations/${conversationId}/activities`, token, {
      type: 'message',
      text,
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    for (const deadline = Date.now() + 15000; Date.now() < deadline; ) {
      const call = stub.calls.find((seen) => seen.body.input === text);
      if (call) {
        assert.equal(call.body.conversationId, conversationId);
        return claimsOf(call.authorization);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`the agent never heard "${text}"`);
  };
  /** The assistantId GET /users/assistant-id answers for this identity (and whether it was new). */
  const assistantIdOf = async (headers: Record<string, string>) => {
    const answer = await get('/users/assistant-id', { ...headers, 'x-api-key': keys.gateway });
    assert.ok([200, 201].includes(answer.status), JSON.stringify(answer.body));
    return { assistantId: String(answer.body.assistantId), created: answer.status === 201 };
  };

  describe('happy', () => {
    it('binds /token with a gateway key to the identity’s user, created then and found by GET /users/assistant-id', async () => {
      const who = identity();
      const token = await get('/token', { ...who, 'x-api-key': keys.gateway });
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const { conversationId, token: dlToken } = token.body as unknown as TokenAnswer;
      const user = await assistantIdOf(who);
      assert.equal(user.created, false, '/token created the user');

      // The conversation exists from /token on: its first POST /conversations finds it (200).
      const started = await directLine('POST', '/conversations', dlToken, { user: { id: 'r_someone' } });
      assert.equal(started.status, 200);
      assert.equal(started.body.conversationId, conversationId);
      const claims = await claimsOfTurn(conversationId, dlToken);
      assert.equal(claims.assistant_id, user.assistantId);
      assert.equal(claims.channel, 'directline');
      assert.equal(claims.conversationId, conversationId);
    });

    it('binds /token/wss with a runtime key to the user GET /users/assistant-id already made', async () => {
      const who = identity('web');
      const user = await assistantIdOf(who);
      assert.equal(user.created, true);
      const wss = await get('/token/wss', { ...who, 'x-api-key': keys.runtime });
      assert.equal(wss.status, 200, JSON.stringify(wss.body));
      const { conversationId, token, streamUrl } = wss.body as unknown as TokenAnswer;
      assert.ok(streamUrl?.includes(conversationId));
      assert.equal((await claimsOfTurn(conversationId, token)).assistant_id, user.assistantId);
      // The same identity again: the same person, a conversation of its own.
      const again = (await get('/token/wss', { ...who, 'x-api-key': keys.gateway }))
        .body as unknown as TokenAnswer;
      assert.notEqual(again.conversationId, conversationId);
      assert.equal((await claimsOfTurn(again.conversationId, again.token)).assistant_id, user.assistantId);
    });

    it('keeps the binding through a token refresh and a reconnect', async () => {
      const who = identity();
      const { conversationId, token } = (await get('/token/wss', { ...who, 'x-api-key': keys.gateway }))
        .body as unknown as TokenAnswer;
      const { assistantId } = await assistantIdOf(who);

      const refreshed = await directLine('POST', '/tokens/refresh', token);
      assert.equal(refreshed.status, 200);
      const refreshedToken = String(refreshed.body.token);
      assert.notEqual(refreshedToken, token);
      assert.equal((await claimsOfTurn(conversationId, refreshedToken)).assistant_id, assistantId);

      const reconnected = await directLine('GET', `/conversations/${conversationId}`, refreshedToken);
      assert.equal(reconnected.status, 200);
      const reconnectedToken = String(reconnected.body.token);
      assert.equal((await claimsOfTurn(conversationId, reconnectedToken)).assistant_id, assistantId);
    });

    it('documents the headers and the refusals on both operations', async () => {
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
        paths: Record<
          string,
          {
            get: {
              parameters: Array<{ in: string; name: string }>;
              responses: Record<string, unknown>;
              description: string;
            };
          }
        >;
      };
      for (const path of ['/token', '/token/wss']) {
        const operation = document.paths[path]?.get;
        assert.ok(operation, path);
        const headers = operation.parameters
          .filter((p) => p.in === 'header')
          .map((p) => p.name.toLowerCase());
        assert.ok(headers.includes('x-channel') && headers.includes('x-channel-user-id'), path);
        for (const status of ['400', '401', '403', '409', '502'])
          assert.ok(operation.responses[status], status);
        assert.match(operation.description, /X-Channel-User-Id/);
      }
    });

    it('unbinds the conversations of a removed user: the agent no longer hears who spoke', async () => {
      // Deleted by its assistantId.
      const who = identity();
      const first = (await get('/token/wss', { ...who, 'x-api-key': keys.gateway }))
        .body as unknown as TokenAnswer;
      const { assistantId } = await assistantIdOf(who);
      assert.equal((await claimsOfTurn(first.conversationId, first.token)).assistant_id, assistantId);
      const removed = await fetch(`${base}/users/${assistantId}`, {
        method: 'DELETE',
        headers: { 'x-api-key': keys.runtime },
      });
      assert.equal(removed.status, 204);
      const after = await claimsOfTurn(first.conversationId, first.token);
      assert.equal('assistant_id' in after, false, JSON.stringify(after));

      // Erased by phone number.
      const person = identity();
      const phone = `+3461${String(Date.now()).slice(-7)}`;
      const withPhone = await get('/users/assistant-id', {
        ...person,
        'x-phone-number': phone,
        'x-api-key': keys.gateway,
      });
      const second = (await get('/token', { ...person, 'x-api-key': keys.runtime }))
        .body as unknown as TokenAnswer;
      assert.equal(
        (await claimsOfTurn(second.conversationId, second.token)).assistant_id,
        withPhone.body.assistantId,
      );
      const erased = await fetch(`${base}/admin/users/phone-numbers/${encodeURIComponent(phone)}`, {
        method: 'DELETE',
        headers: { 'x-api-key': keys.gateway },
      });
      assert.equal(erased.status, 204);
      assert.equal('assistant_id' in (await claimsOfTurn(second.conversationId, second.token)), false);
      const stored = await createDirectLineRepository(core.database).find(second.conversationId);
      assert.equal(stored?.assistantId, null);
    });
  });

  describe('errors', () => {
    it('a conversation cannot be stored for a user that is not there (the removal won the race)', async () => {
      const repository = createDirectLineRepository(core.database);
      assert.equal(
        await repository.start(randomUUID(), 'dl_someone', Date.now(), randomUUID()),
        'speaker-gone',
      );
      assert.equal(await repository.start(randomUUID(), 'dl_someone', Date.now()), true);
    });

    it('a message a stopped process left pending is answered for the same person', async () => {
      const who = identity();
      const { conversationId } = (await get('/token/wss', { ...who, 'x-api-key': keys.gateway }))
        .body as unknown as TokenAnswer;
      const { assistantId } = await assistantIdOf(who);
      const text = `left pending ${randomUUID()}`;
      // A process stored the message and died before calling the agent: its claim has run out.
      await createDirectLineRepository(core.database).append(
        conversationId,
        Date.now(),
        (id): Activity => ({
          type: 'message',
          text,
          id,
          timestamp: new Date().toISOString(),
          channelId: 'directline',
          conversation: { id: conversationId },
          from: { id: 'dl_someone', role: 'user' },
        }),
        { by: 'a-stopped-process', until: Date.now() - 1 },
      );
      // A process that starts answers what was left pending at once.
      let second: RunningFamily | undefined;
      try {
        second = await startFamily(core, ['assistant-auth']);
        for (const deadline = Date.now() + 15000; Date.now() < deadline; ) {
          if (stub.calls.some((seen) => seen.body.input === text)) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const call = stub.calls.find((seen) => seen.body.input === text);
        assert.ok(call, 'the pending message was answered');
        assert.equal((await claimsOf(call.authorization)).assistant_id, assistantId);
      } finally {
        await second?.close();
      }
    });
  });

  describe('security', () => {
    it('leaves anonymous conversations anonymous, whatever key asks and whatever Direct Line is told', async () => {
      for (const keyClass of ['client', 'gateway'] as const) {
        const token = (await get('/token', { 'x-api-key': keys[keyClass] })).body as unknown as TokenAnswer;
        // Anonymous /token starts nothing: its first POST /conversations creates the conversation (201).
        const started = await directLine('POST', '/conversations', token.token, {
          user: { id: 'r_me' },
          assistant_id: randomUUID(),
          channelData: { assistant_id: randomUUID() },
        });
        assert.equal(started.status, 201);
        const claims = await claimsOfTurn(token.conversationId, token.token);
        assert.equal('assistant_id' in claims, false, JSON.stringify(claims));
      }
      const wss = (await get('/token/wss', { 'x-api-key': keys.backoffice })).body as unknown as TokenAnswer;
      const claims = await claimsOfTurn(wss.conversationId, wss.token);
      assert.equal('assistant_id' in claims, false);
    });

    it('never lets Direct Line alter a bound conversation’s binding', async () => {
      const who = identity();
      const bound = (await get('/token', { ...who, 'x-api-key': keys.gateway }))
        .body as unknown as TokenAnswer;
      const { assistantId } = await assistantIdOf(who);
      const other = await assistantIdOf(identity());
      const body = {
        user: { id: `dl_${other.assistantId}` },
        assistant_id: other.assistantId,
        assistantId: other.assistantId,
        channelData: { assistant_id: other.assistantId },
      };
      for (let round = 0; round < 2; round += 1) {
        const started = await directLine('POST', '/conversations', bound.token, body);
        assert.equal(started.status, 200);
      }
      const posted = await claimsOfTurn(bound.conversationId, bound.token);
      assert.equal(posted.assistant_id, assistantId);

      // An activity naming someone else is still spoken by the bound person.
      const text = randomUUID();
      await directLine('POST', `/conversations/${bound.conversationId}/activities`, bound.token, {
        type: 'message',
        text,
        from: { id: `dl_${other.assistantId}` },
        channelData: { assistant_id: other.assistantId },
      });
      for (const deadline = Date.now() + 15000; Date.now() < deadline; ) {
        if (stub.calls.some((seen) => seen.body.input === text)) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const call = stub.calls.find((seen) => seen.body.input === text);
      assert.equal((await claimsOf(call?.authorization)).assistant_id, assistantId);
    });

    it('refuses the identity headers with a client or backoffice key (403) and one header alone (400)', async () => {
      for (const path of ['/token', '/token/wss']) {
        for (const keyClass of ['client', 'backoffice'] as const) {
          const who = identity();
          const partial: Array<Record<string, string>> = [
            who,
            { 'x-channel': 'web' },
            { 'x-channel-user-id': 'someone' },
          ];
          for (const headers of partial) {
            const refused = await get(path, { ...headers, 'x-api-key': keys[keyClass] });
            assert.equal(refused.status, 403, `${path} ${keyClass} ${JSON.stringify(headers)}`);
            const body = refused.body as unknown as ErrorAnswer;
            assert.equal(body.code, 'FORBIDDEN');
            assert.equal(body.errors[0]?.type, 'ACCESS_DENIED');
          }
          // Refused before anything was made: the identity has no user yet.
          assert.equal((await assistantIdOf(who)).created, true);
        }
        for (const keyClass of ['gateway', 'runtime'] as const) {
          for (const [headers, missing] of [
            [{ 'x-channel': 'web' }, 'x-channel-user-id'],
            [{ 'x-channel-user-id': 'someone' }, 'x-channel'],
          ] as const) {
            const refused = await get(path, { ...headers, 'x-api-key': keys[keyClass] });
            assert.equal(refused.status, 400, `${path} ${keyClass} ${JSON.stringify(headers)}`);
            const body = refused.body as unknown as ErrorAnswer;
            assert.equal(body.code, 'BAD_REQUEST');
            assert.equal(body.errors[0]?.type, 'VALIDATION_ERROR');
            assert.match(body.errors[0]?.message ?? '', new RegExp(missing));
          }
          const badChannel = await get(path, {
            'x-channel': 'Not A Channel',
            'x-channel-user-id': 'someone',
            'x-api-key': keys[keyClass],
          });
          assert.equal(badChannel.status, 400);
        }
      }
    });
  });
});

describe('conversations bound to a person with an external Direct Line service (DIRECTLINE_URL)', () => {
  let fake: FakeDirectLine;
  let app: Awaited<ReturnType<typeof createTestApp>>['app'];
  let close: () => Promise<void>;
  let gateway: string;
  before(async () => {
    fake = await startFakeDirectLine();
    const test = await createTestApp('assistant-auth', {
      DIRECTLINE_URL: fake.url,
      DIRECTLINE_SECRET: fake.secret,
    });
    ({ app, close } = test);
    gateway = (await test.core.apiKeys.create('gateway', 'binding-external')).key;
  });
  after(async () => {
    await close();
    await fake.close();
  });

  describe('errors', () => {
    it('refuses to bind (400 CHANNEL_BINDING_UNSUPPORTED) before making a user or calling the service', async () => {
      const who = { 'x-channel': 'web', 'x-channel-user-id': `user-${randomUUID()}` };
      for (const url of ['/token', '/token/wss']) {
        const refused = await app.inject({ url, headers: { ...who, 'x-api-key': gateway } });
        assert.equal(refused.statusCode, 400);
        const body = refused.json() as ErrorAnswer;
        assert.equal(body.code, 'BAD_REQUEST');
        assert.equal(body.errors[0]?.type, 'CHANNEL_BINDING_UNSUPPORTED');
      }
      assert.equal(fake.calls.length, 0);
      const user = await app.inject({
        url: '/users/assistant-id',
        headers: { ...who, 'x-api-key': gateway },
      });
      assert.equal(user.statusCode, 201, 'no user was made for the refused binding');
      const anonymous = await app.inject({ url: '/token', headers: { 'x-api-key': gateway } });
      assert.equal(anonymous.statusCode, 200);
    });
  });
});
