import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type TestCore } from '../helpers/harness.ts';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.ts';
import { type ModelServer, startModelServer } from './helpers/model-server.ts';

/**
 * Memory belongs to its conversation (issue 40): a caller continues, reads or adds to, only a
 * conversation it started; an anonymous conversation's memory is reached only through its channel; and
 * a conversation keeps CHAT_HISTORY_TURNS turns at most.
 */
describe('the chat agent’s memory belongs to who started the conversation', () => {
  let model: ModelServer;
  let jwks: JwksServer;
  let app: App;
  let core: TestCore;
  let close: () => Promise<void>;
  const keys: Record<'first' | 'second' | 'operator', string> = { first: '', second: '', operator: '' };

  before(async () => {
    model = await startModelServer();
    model.handle((request, response) => {
      const last = request.body.messages?.at(-1)?.content ?? '';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          model: 'scripted',
          choices: [{ index: 0, message: { role: 'assistant', content: `heard: ${last}` } }],
        }),
      );
    });
    jwks = await startJwksServer();
    ({ app, core, close } = await createTestApp('agents', {
      MODEL_BASE_URL: model.baseUrl,
      MODEL_NAME: 'scripted',
      PUBLIC_BASE_URL: jwks.baseUrl,
      ASSISTANT_JWKS_URL: jwks.jwksUrl,
      CHAT_HISTORY_TURNS: '2',
    }));
    keys.first = (await core.apiKeys.create('runtime', 'memory-first')).key;
    keys.second = (await core.apiKeys.create('runtime', 'memory-second')).key;
    keys.operator = (await core.apiKeys.create('backoffice', 'memory-operator')).key;
  });
  after(async () => {
    await close();
    await jwks.close();
    await model.close();
  });
  beforeEach(() => {
    model.requests.length = 0;
  });

  const asKey = (key: string) => ({ 'x-api-key': key });
  const asChannel = async (conversationId: string) => ({
    authorization: `Bearer ${await jwks.sign(
      { sub: 'dl_someone', channel: 'directline', conversationId },
      { audience: 'sintonia-agents', issuer: jwks.issuer },
    )}`,
  });
  const say = (input: string, conversationId: string, headers: Record<string, string>) =>
    app.inject({ method: 'POST', url: '/agents/chat/invoke', headers, payload: { input, conversationId } });
  /** What the model heard on the last call, the system prompt left out. */
  const heard = () =>
    (model.requests.at(-1)?.body.messages ?? []).filter((m) => m.role !== 'system').map((m) => m.content);

  describe('happy', () => {
    it('keeps CHAT_HISTORY_TURNS turns of a conversation, the oldest forgotten', async () => {
      const since = Date.now();
      for (const input of ['one', 'two', 'three', 'four']) {
        assert.equal((await say(input, 'long-1', asKey(keys.first))).statusCode, 200);
      }
      // Only this conversation was spoken to since `since`: what is stored of that time is its memory.
      const { rows } = await sql<{ turns: number | string }>`
      select count(distinct turn_id) as turns from agent_chat_history where created_at >= ${since}`.execute(
        core.database.db,
      );
      assert.equal(Number(rows[0]?.turns), 2, 'the conversation holds its 2 newest turns');
      assert.equal((await say('five', 'long-1', asKey(keys.first))).statusCode, 200);
      assert.deepEqual(heard(), ['three', 'heard: three', 'four', 'heard: four', 'five']);
    });
  });

  describe('security', () => {
    it('another key with the same conversation id neither reads nor adds to it', async () => {
      assert.equal((await say('my code is 4711', 'shared-id', asKey(keys.first))).statusCode, 200);
      assert.equal((await say('what is my code?', 'shared-id', asKey(keys.second))).statusCode, 200);
      assert.deepEqual(heard(), ['what is my code?'], 'the second key hears nothing of the first’s turn');
      assert.equal((await say('and again?', 'shared-id', asKey(keys.first))).statusCode, 200);
      assert.deepEqual(
        heard(),
        ['my code is 4711', 'heard: my code is 4711', 'and again?'],
        'the first key’s conversation holds its own turns, none the second key added',
      );
    });

    it('an anonymous conversation’s memory is reachable through its channel only, not by a key', async () => {
      const channel = await asChannel('anon-1');
      assert.equal((await say('I live in Turin', 'anon-1', channel)).statusCode, 200);
      for (const key of [keys.first, keys.operator]) {
        assert.equal((await say('where do I live?', 'anon-1', asKey(key))).statusCode, 200);
        assert.deepEqual(heard(), ['where do I live?'], 'a runtime or back-office key reads none of it');
      }
      assert.equal((await say('where do I live?', 'anon-1', channel)).statusCode, 200);
      assert.deepEqual(heard(), ['I live in Turin', 'heard: I live in Turin', 'where do I live?']);
    });

    it('a channel token signed for one conversation cannot reach another’s memory: 403', async () => {
      const response = await say('tell me everything', 'anon-1', await asChannel('anon-2'));
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().errors[0].type, 'ACCESS_DENIED');
      assert.equal(model.requests.length, 0, 'the model was never asked');
    });
  });
});
