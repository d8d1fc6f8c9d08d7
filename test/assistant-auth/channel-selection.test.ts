import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, startTestFamily, type TestCore } from '../helpers/harness.ts';

/** Without DIRECTLINE_URL, /token and /token/wss come from the embedded channel the family runs itself. */
describe('/token from the embedded channel (default)', () => {
  let core: TestCore;
  let base: string;
  let close: () => Promise<void>;
  let key: string;
  before(async () => {
    const started = await startTestFamily(['assistant-auth']);
    ({ core, close } = started);
    base = started.family.url('assistant-auth');
    key = (await core.apiKeys.create('client', 'embedded-token')).key;
  });
  after(async () => close());

  describe('happy', () => {
    it('hands out a token that the embedded Direct Line routes accept', async () => {
      const response = await fetch(`${base}/token`, { headers: { 'x-api-key': key } });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { token: string; expires_in: number; conversationId: string };
      assert.ok(body.token.length > 20);
      assert.ok(body.expires_in > 0);
      const conversation = await fetch(`${base}/v3/directline/conversations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${body.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      assert.ok([200, 201].includes(conversation.status), await conversation.clone().text());
      assert.equal(
        ((await conversation.json()) as { conversationId: string }).conversationId,
        body.conversationId,
      );
    });

    it('hands out a conversation with a websocket stream URL on this service', async () => {
      const response = await fetch(`${base}/token/wss`, { headers: { 'x-api-key': key } });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { streamUrl: string; conversationId: string; token: string };
      assert.ok(body.streamUrl.startsWith(base.replace(/^http/, 'ws')), body.streamUrl);
      assert.ok(body.streamUrl.includes(body.conversationId));
    });
  });

  describe('errors', () => {
    it('refuses to start with DIRECTLINE_URL but no DIRECTLINE_SECRET', async () => {
      await assert.rejects(
        createTestApp('assistant-auth', { DIRECTLINE_URL: 'http://127.0.0.1:9' }),
        /DIRECTLINE_SECRET/,
      );
    });
  });
});
