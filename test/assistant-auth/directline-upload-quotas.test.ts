import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDirectLineRepository } from '../../src/assistant-auth/directline/repository.ts';
import type { Env } from '../helpers/harness.ts';
import {
  activitiesOf,
  type ConversationAnswer,
  directLineCall,
  type ErrorBody,
  embeddedChannel,
} from './helpers/directline-wire.ts';

/** One family of the embedded channel under the given limits; nothing here needs the agent to answer. */
function channel(overrides: Env) {
  const family = embeddedChannel(overrides);
  return Object.assign(family, {
    /** One upload of files of the given sizes, with the conversation's token unless another is given. */
    upload(to: ConversationAnswer, sizes: number[], token = to.token): Promise<Response> {
      const form = new FormData();
      form.append(
        'activity',
        new Blob([JSON.stringify({ type: 'message' })], { type: 'application/vnd.microsoft.activity' }),
      );
      for (const [index, size] of sizes.entries()) {
        form.append('file', new Blob([new Uint8Array(randomBytes(size))]), `file-${index}.bin`);
      }
      return fetch(`${family.base}/v3/directline/conversations/${to.conversationId}/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
    },
    /** How many files the conversation's stored messages name. */
    async storedFiles(of: ConversationAnswer): Promise<number> {
      return (await activitiesOf(family.base, of))
        .filter((activity) => activity.from.role === 'user')
        .reduce((sum, activity) => sum + (activity.attachments?.length ?? 0), 0);
    },
    /** Waits until every stored user message has its answer (here the agent's error): nothing more comes. */
    async settled(of: ConversationAnswer): Promise<void> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const activities = await activitiesOf(family.base, of);
        const bots = activities.filter((activity) => activity.from.role === 'bot').length;
        if (bots > 0 && bots === activities.length - bots) return;
        if (Date.now() > deadline) throw new Error('the agent’s answers never came');
        await sleep(50);
      }
    },
    /** The upload operation as assistant-auth's OpenAPI document describes it. */
    async uploadOperation() {
      const document = (await (await fetch(`${family.base}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { 'x-error-types'?: Record<string, string[]> }>>;
      };
      return document.paths['/v3/directline/conversations/{conversationId}/upload']?.post;
    },
    async refresh(token: string): Promise<string> {
      const response = await directLineCall(family.base, 'POST', '/v3/directline/tokens/refresh', {
        bearer: token,
      });
      assert.equal(response.status, 200);
      return ((await response.json()) as { token: string }).token;
    },
  });
}

async function assertRefused(response: Response, status: number, type: string, retryAfter?: string) {
  assert.equal(response.status, status, type);
  const body = (await response.json()) as ErrorBody;
  assert.equal(body.code, status === 413 ? 'PAYLOAD_TOO_LARGE' : 'TOO_MANY_REQUESTS');
  assert.equal(body.errors[0]?.type, type);
  assert.equal(response.headers.get('retry-after') ?? undefined, retryAfter);
  assert.equal(response.headers.get('access-control-allow-origin'), '*', 'browsers may read the refusal');
}

describe('embedded Direct Line channel: what one conversation may hold', () => {
  const family = channel({
    DIRECTLINE_UPLOAD_LIMIT: '16384',
    DIRECTLINE_CONVERSATION_UPLOAD_FILES: '4',
    DIRECTLINE_CONVERSATION_UPLOAD_BYTES: '8192',
  });
  before(() => family.start());
  after(() => family.stop());

  describe('happy', () => {
    it('are declared on the upload operation of the OpenAPI document', async () => {
      const types = (await family.uploadOperation())?.['x-error-types'] ?? {};
      assert.ok(types['413']?.includes('DIRECTLINE_CONVERSATION_UPLOADS_FULL'));
      assert.ok(types['413']?.includes('DIRECTLINE_UPLOAD_TOO_LARGE'));
      assert.ok(types['429']?.includes('DIRECTLINE_UPLOAD_RATE_LIMITED'));
      assert.ok(types['429']?.includes('DIRECTLINE_UPLOAD_STORE_FULL'));
    });
  });

  describe('errors', () => {
    it('takes DIRECTLINE_CONVERSATION_UPLOAD_FILES files, then 413 and nothing stored; another conversation still takes files', async () => {
      const full = await family.conversation();
      assert.equal((await family.upload(full, [100, 100, 100])).status, 200);
      assert.equal((await family.upload(full, [100])).status, 200);
      await assertRefused(await family.upload(full, [100]), 413, 'DIRECTLINE_CONVERSATION_UPLOADS_FULL');
      assert.equal(await family.storedFiles(full), 4);
      assert.equal((await family.upload(await family.conversation(), [100])).status, 200);
      assert.equal(await family.refusals('upload_conversation_full'), 1, 'counted in /metrics');
    });

    it('takes DIRECTLINE_CONVERSATION_UPLOAD_BYTES bytes in all, then 413', async () => {
      const conversation = await family.conversation();
      assert.equal((await family.upload(conversation, [5000])).status, 200);
      await assertRefused(
        await family.upload(conversation, [4000]),
        413,
        'DIRECTLINE_CONVERSATION_UPLOADS_FULL',
      );
      assert.equal((await family.upload(conversation, [3000])).status, 200, 'what still fits is taken');
      assert.equal(await family.storedFiles(conversation), 2);
    });

    it('refuses a full conversation before reading the body, however large', async () => {
      const conversation = await family.conversation();
      assert.equal((await family.upload(conversation, [8192])).status, 200);
      // Over DIRECTLINE_UPLOAD_LIMIT too: the room is checked first, so that is not what it says.
      const huge = await family.upload(conversation, [20000]);
      await assertRefused(huge, 413, 'DIRECTLINE_CONVERSATION_UPLOADS_FULL');
    });

    it('weighs uploads sent at once one after the other: eight single files, exactly four stored', async () => {
      const conversation = await family.conversation();
      const answers = await Promise.all(Array.from({ length: 8 }, () => family.upload(conversation, [10])));
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 413, 413, 413, 413]);
      assert.equal(await family.storedFiles(conversation), 4);
    });
  });
});

describe('embedded Direct Line channel: what one token may upload within REQUEST_LIMIT_WINDOW', () => {
  const family = channel({
    REQUEST_LIMIT_WINDOW: '4',
    DIRECTLINE_TOKEN_UPLOAD_FILES: '3',
    DIRECTLINE_TOKEN_UPLOAD_BYTES: '6144',
  });
  before(() => family.start());
  after(() => family.stop());

  describe('errors', () => {
    it('takes DIRECTLINE_TOKEN_UPLOAD_FILES files, then 429 with Retry-After, also with a refreshed token; takes more once the window moved on', async () => {
      const conversation = await family.conversation();
      for (let upload = 0; upload < 3; upload += 1) {
        assert.equal((await family.upload(conversation, [100])).status, 200);
      }
      await assertRefused(
        await family.upload(conversation, [100]),
        429,
        'DIRECTLINE_UPLOAD_RATE_LIMITED',
        '4',
      );
      const refreshed = await family.refresh(conversation.token);
      await assertRefused(
        await family.upload(conversation, [100], refreshed),
        429,
        'DIRECTLINE_UPLOAD_RATE_LIMITED',
        '4',
      );
      assert.equal(await family.storedFiles(conversation), 3);
      assert.equal(await family.refusals('upload_per_token'), 2, 'counted in /metrics');
      await sleep(4100);
      assert.equal((await family.upload(conversation, [100], refreshed)).status, 200);
      assert.equal(await family.storedFiles(conversation), 4);
    });

    it('takes DIRECTLINE_TOKEN_UPLOAD_BYTES bytes, then 429', async () => {
      const conversation = await family.conversation();
      assert.equal((await family.upload(conversation, [5000])).status, 200);
      await assertRefused(
        await family.upload(conversation, [2000]),
        429,
        'DIRECTLINE_UPLOAD_RATE_LIMITED',
        '4',
      );
      assert.equal((await family.upload(conversation, [1000])).status, 200, 'what still fits is taken');
    });
  });
});

describe('embedded Direct Line channel: the store’s budget for uploads', () => {
  const family = channel({ DIRECTLINE_UPLOAD_STORE_BYTES: '10000' });
  before(() => family.start());
  after(() => family.stop());

  describe('errors', () => {
    it('refuses any conversation’s upload past DIRECTLINE_UPLOAD_STORE_BYTES with 429, until removed conversations free room', async () => {
      const first = await family.conversation();
      const second = await family.conversation();
      assert.equal((await family.upload(first, [6000])).status, 200);
      await family.settled(first);
      await sleep(5);
      const firstIdleSince = Date.now();
      await sleep(5);
      // Retry-After: the retention purge's interval (an hour with the default CHANNEL_RETENTION).
      await assertRefused(await family.upload(second, [5000]), 429, 'DIRECTLINE_UPLOAD_STORE_FULL', '3600');
      assert.equal((await family.upload(second, [3000])).status, 200, 'what still fits is taken');
      await assertRefused(await family.upload(second, [2000]), 429, 'DIRECTLINE_UPLOAD_STORE_FULL', '3600');
      assert.equal(await family.refusals('upload_store_full'), 2, 'counted in /metrics');

      // The retention purge removes the first conversation, and its files with it.
      const removed = await createDirectLineRepository(family.core.database).purgeIdleBefore(firstIdleSince);
      assert.equal(removed, 1);
      assert.equal((await family.upload(second, [5000])).status, 200);
      assert.equal(await family.storedFiles(second), 2);
    });
  });
});
