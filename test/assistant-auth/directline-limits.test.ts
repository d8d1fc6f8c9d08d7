import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { Env } from '../helpers/harness.ts';
import { awayFromMinuteEdge } from '../helpers/minute-edge.ts';
import { refusedUpgrade } from './helpers/directline-stream.ts';
import { type ConversationAnswer, directLineCall, embeddedChannel } from './helpers/directline-wire.ts';

/** The embedded channel under the given limits; an unreachable agents server answers every message. */
function channel(overrides: Env) {
  const family = embeddedChannel(overrides);
  return Object.assign(family, {
    /** One event activity (never answered by the agent) of about `size` bytes. */
    post(to: ConversationAnswer, size = 10): Promise<Response> {
      return directLineCall(
        family.base,
        'POST',
        `/v3/directline/conversations/${to.conversationId}/activities`,
        {
          bearer: to.token,
          body: { type: 'event', name: 'note', value: 'x'.repeat(size), from: { id: 'u' } },
        },
      );
    },
  });
}

async function assertRefused(response: Response, status: number, type: string, retryAfter: boolean) {
  assert.equal(response.status, status, type);
  const body = (await response.json()) as { errors: Array<{ type: string }> };
  assert.equal(body.errors[0]?.type, type);
  const header = response.headers.get('retry-after');
  if (!retryAfter) return assert.equal(header, null);
  assert.ok(Number(header) >= 1 && Number(header) <= 60, `Retry-After ${header}`);
  assert.equal(response.headers.get('access-control-allow-origin'), '*', 'browsers may read the refusal');
}

describe('Direct Line: what one conversation takes per minute (per token: a token has one conversation)', () => {
  const family = channel({
    DIRECTLINE_ACTIVITIES_PER_MINUTE: '3',
    DIRECTLINE_ACTIVITY_BYTES_PER_MINUTE: '100000',
  });
  before(() => family.start());
  after(() => family.stop());

  describe('errors', () => {
    it('takes DIRECTLINE_ACTIVITIES_PER_MINUTE activities, then 429 DIRECTLINE_RATE_LIMITED with Retry-After; another conversation still posts', async () => {
      const one = await family.conversation();
      for (let n = 0; n < 3; n++) assert.equal((await family.post(one)).status, 200);
      await assertRefused(await family.post(one), 429, 'DIRECTLINE_RATE_LIMITED', true);
      assert.equal((await family.post(await family.conversation())).status, 200);
      assert.equal(await family.refusals('directline_conversation_per_minute'), 1);
    });

    it('takes DIRECTLINE_ACTIVITY_BYTES_PER_MINUTE bytes, then 429', async () => {
      const one = await family.conversation();
      assert.equal((await family.post(one, 60_000)).status, 200);
      await assertRefused(await family.post(one, 60_000), 429, 'DIRECTLINE_RATE_LIMITED', true);
      assert.equal((await family.post(one, 100)).status, 200, 'a small one still fits the minute');
    });
  });
});

describe('Direct Line: what one conversation holds', () => {
  const family = channel({
    DIRECTLINE_CONVERSATION_ACTIVITIES: '10',
    DIRECTLINE_CONVERSATION_ACTIVITY_BYTES: '200000',
  });
  before(() => family.start());
  after(() => family.stop());

  describe('errors', () => {
    it('holds DIRECTLINE_CONVERSATION_ACTIVITIES activities, then 413 DIRECTLINE_CONVERSATION_FULL (no Retry-After)', async () => {
      const one = await family.conversation();
      for (let n = 0; n < 10; n++) assert.equal((await family.post(one)).status, 200);
      await assertRefused(await family.post(one), 413, 'DIRECTLINE_CONVERSATION_FULL', false);
      assert.equal(await family.refusals('directline_conversation_full'), 1);
    });

    it('holds DIRECTLINE_CONVERSATION_ACTIVITY_BYTES bytes, then 413', async () => {
      const one = await family.conversation();
      for (let n = 0; n < 3; n++) assert.equal((await family.post(one, 60_000)).status, 200);
      await assertRefused(await family.post(one, 60_000), 413, 'DIRECTLINE_CONVERSATION_FULL', false);
    });
  });
});

describe('Direct Line: what the channel takes per minute, all conversations together', () => {
  const family = channel({
    DIRECTLINE_CHANNEL_ACTIVITIES_PER_MINUTE: '4',
    DIRECTLINE_CONVERSATIONS_PER_MINUTE: '3',
  });
  before(() => family.start());
  after(() => family.stop());

  describe('errors', () => {
    it('starts DIRECTLINE_CONVERSATIONS_PER_MINUTE conversations, then 429 DIRECTLINE_CHANNEL_BUSY with Retry-After', async () => {
      await awayFromMinuteEdge();
      const started = [await family.conversation(), await family.conversation(), await family.conversation()];
      await assertRefused(await family.startConversation(), 429, 'DIRECTLINE_CHANNEL_BUSY', true);
      assert.equal(await family.refusals('directline_channel_conversations'), 1);
      // The activities of the conversations started are counted for the channel as a whole.
      for (const n of [0, 1, 2, 0])
        assert.equal((await family.post(started[n] as ConversationAnswer)).status, 200);
      await assertRefused(
        await family.post(started[1] as ConversationAnswer),
        429,
        'DIRECTLINE_CHANNEL_BUSY',
        true,
      );
      assert.equal(await family.refusals('directline_channel_activities'), 1);
    });
  });
});

describe('Direct Line: streams one process holds', () => {
  const family = channel({ DIRECTLINE_STREAMS: '1' });
  before(() => family.start());
  after(() => family.stop());

  describe('errors', () => {
    it('holds DIRECTLINE_STREAMS streams; one more is 503 DIRECTLINE_STREAMS_FULL with Retry-After, until one closes', async () => {
      const first = await family.conversation();
      const open = new WebSocket(first.streamUrl);
      await new Promise((resolve, reject) => open.once('open', resolve).once('error', reject));
      const second = await family.conversation();
      const { status, retryAfter, type } = await refusedUpgrade(second.streamUrl);
      assert.deepEqual(
        { status, retryAfter, type },
        { status: 503, retryAfter: '5', type: 'DIRECTLINE_STREAMS_FULL' },
      );
      assert.equal(await family.refusals('directline_streams'), 1);
      open.close();
      await new Promise((resolve) => open.once('close', resolve));
      // The server sees the close a moment later; then the room is there again.
      const deadline = Date.now() + 5000;
      for (;;) {
        const again = new WebSocket(second.streamUrl);
        const opened = await new Promise<boolean>((resolve) => {
          again.once('open', () => resolve(true));
          again.once('unexpected-response', () => resolve(false));
          again.once('error', () => resolve(false));
        });
        again.terminate();
        if (opened) break;
        assert.ok(Date.now() < deadline, 'the room never came back');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
  });
});

describe('chat page tokens per client address: IPv6 counted by /64', () => {
  const family = channel({ CHAT_PAGE: 'on', CHAT_TOKEN_LIMIT: '2', TRUSTED_PROXIES: 'loopback' });
  before(() => family.start());
  after(() => family.stop());

  const token = (address: string) =>
    fetch(`${family.base}/chat/token`, { method: 'POST', headers: { 'x-forwarded-for': address } });

  describe('errors', () => {
    it('counts two addresses of one /64 as one client: the third token is 429 with Retry-After; another /64 still gets one', async () => {
      assert.equal((await token('2001:db8:1:2::1')).status, 200);
      assert.equal((await token('2001:db8:1:2:ffff::9')).status, 200);
      const refused = await token('2001:0db8:0001:0002:0:0:0:abcd');
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal((await token('2001:db8:1:3::1')).status, 200);
      assert.equal(await family.refusals('chat_token_per_address'), 1);
    });
  });
});
