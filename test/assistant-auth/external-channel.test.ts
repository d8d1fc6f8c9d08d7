import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type TestCore } from '../helpers/harness.ts';
import { type FakeDirectLine, startFakeDirectLine } from './helpers/fake-directline.ts';

describe('/token from an external Direct Line 3.0 service', () => {
  let app: App;
  let core: TestCore;
  let close: () => Promise<void>;
  let directLine: FakeDirectLine;
  let key: string;
  before(async () => {
    directLine = await startFakeDirectLine();
    ({ app, core, close } = await createTestApp('assistant-auth', {
      DIRECTLINE_URL: `${directLine.url}/`,
      DIRECTLINE_SECRET: directLine.secret,
      SUBSYSTEM_TIMEOUT_MS: '10000',
    }));
    key = (await core.apiKeys.create('client', 'token-client')).key;
  });
  after(async () => {
    await close();
    await directLine.close();
  });

  const get = (url: string) => app.inject({ url, headers: { 'x-api-key': key } });

  describe('happy', () => {
    it('returns tokens/generate’s token, lifetime and conversation, asking with the secret', async () => {
      directLine.mode = 'ok';
      directLine.calls.length = 0;
      const response = await get('/token?userId=dl_user-1');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['conversationId', 'expires_in', 'token']);
      assert.match(body.token, /^dltoken\./);
      assert.equal(body.expires_in, 3600);
      assert.deepEqual(directLine.calls, [
        {
          path: '/v3/directline/tokens/generate',
          authorization: `Bearer ${directLine.secret}`,
          body: { user: { id: 'dl_user-1' } },
        },
      ]);
      assert.ok(!response.body.includes(directLine.secret));
    });

    it('returns the conversation’s token, stream URL and further fields for /token/wss', async () => {
      directLine.mode = 'ok';
      directLine.calls.length = 0;
      const response = await get('/token/wss');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.expires_in, 1800);
      assert.match(body.streamUrl, /^wss:\/\/directline\.example\/v3\/directline\/conversations\/conv-/);
      assert.ok(body.streamUrl.includes(body.conversationId));
      assert.equal(body.referenceGrammarId, 'grammar-1');
      assert.equal(directLine.calls[0]?.path, '/v3/directline/conversations');
      assert.deepEqual(directLine.calls[0]?.body, {});
    });
  });

  describe('errors', () => {
    for (const mode of ['error', 'not-json'] as const) {
      it(`answers 502 SUBSYSTEM_ERROR when the service fails (${mode})`, async () => {
        directLine.mode = mode;
        try {
          for (const url of ['/token', '/token/wss']) {
            const response = await get(url);
            assert.equal(response.statusCode, 502, `${url} ${response.body}`);
            assert.equal(response.json().code, 'BAD_GATEWAY');
            assert.equal(response.json().errors[0].type, 'SUBSYSTEM_ERROR');
          }
        } finally {
          directLine.mode = 'ok';
        }
      });
    }

    it('answers 502 SUBSYSTEM_ERROR when the service does not answer within SUBSYSTEM_TIMEOUT_MS', async () => {
      const hanging = await startFakeDirectLine();
      hanging.mode = 'hang';
      const other = await createTestApp('assistant-auth', {
        DIRECTLINE_URL: hanging.url,
        DIRECTLINE_SECRET: hanging.secret,
        SUBSYSTEM_TIMEOUT_MS: '300',
      });
      try {
        const client = (await other.core.apiKeys.create('client', 'c')).key;
        for (const url of ['/token', '/token/wss']) {
          const response = await other.app.inject({ url, headers: { 'x-api-key': client } });
          assert.equal(response.statusCode, 502, `${url} ${response.body}`);
          assert.match(response.json().message, /did not answer within 300 ms/);
        }
      } finally {
        await other.close();
        await hanging.close();
      }
    });

    it('answers 502 when the service is not there at all', async () => {
      const gone = await startFakeDirectLine();
      await gone.close();
      const other = await createTestApp('assistant-auth', {
        DIRECTLINE_URL: gone.url,
        DIRECTLINE_SECRET: 'x',
      });
      try {
        const client = (await other.core.apiKeys.create('client', 'c')).key;
        const response = await other.app.inject({ url: '/token', headers: { 'x-api-key': client } });
        assert.equal(response.statusCode, 502);
        assert.equal(response.json().errors[0].type, 'SUBSYSTEM_ERROR');
      } finally {
        await other.close();
      }
    });

    it('answers 400 for a user id that is not a Direct Line one', async () => {
      const response = await get('/token?userId=bob');
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().errors[0].type, 'VALIDATION_ERROR');
    });
  });
});
