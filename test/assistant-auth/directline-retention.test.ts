import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { channelSecret } from '../../src/assistant-auth/directline/credentials.ts';
import { createDirectLineRepository } from '../../src/assistant-auth/directline/repository.ts';
import type { Activity } from '../../src/assistant-auth/directline/schemas.ts';
import type { DirectLineTables } from '../../src/assistant-auth/directline/tables.ts';
import { startFamily } from '../../src/family.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

describe('embedded Direct Line channel: retention', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore({ CHANNEL_RETENTION: '86400', AGENTS_URL: 'http://127.0.0.1:9/' });
  });
  after(async () => core.dispose());

  describe('happy', () => {
    it('removes conversations idle longer than CHANNEL_RETENTION, with their activities, and keeps the rest', async () => {
      const repository = createDirectLineRepository(core.database);
      const day = 86400_000;
      const note =
        (conversationId: string, at: number) =>
        (id: string): Activity => ({
          type: 'message',
          text: 'noted',
          id,
          timestamp: new Date(at).toISOString(),
          channelId: 'directline',
          conversation: { id: conversationId },
          from: { id: 'dl_someone', role: 'user' },
        });
      const idleAt = Date.now() - 2 * day;
      await repository.start('idle-conversation-1', 'dl_someone', idleAt);
      await repository.append('idle-conversation-1', idleAt, note('idle-conversation-1', idleAt));
      // Started long ago but spoken in recently: idle time counts from the last activity.
      await repository.start('recent-conversation', 'dl_someone', idleAt);
      await repository.append(
        'recent-conversation',
        Date.now() - day / 2,
        note('recent-conversation', Date.now()),
      );

      const family = await startFamily(core, ['assistant-auth']);
      try {
        const base = family.url('assistant-auth');
        const read = (id: string) =>
          fetch(`${base}/v3/directline/conversations/${id}/activities`, {
            headers: { authorization: `Bearer ${channelSecret(core)}` },
          });
        const idle = await read('idle-conversation-1');
        assert.equal(idle.status, 404);
        assert.equal(
          ((await idle.json()) as { errors: Array<{ type: string }> }).errors[0]?.type,
          'DIRECTLINE_CONVERSATION_NOT_FOUND',
        );
        assert.deepEqual(
          await repository.listAfter('idle-conversation-1', 0, 10),
          [],
          'its activities are gone too',
        );
        const recent = await read('recent-conversation');
        assert.equal(recent.status, 200);
        assert.equal(((await recent.json()) as { activities: unknown[] }).activities.length, 1);
      } finally {
        await family.close();
      }
    });
  });
});

describe('embedded Direct Line channel: uploads go with their conversation’s retention', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore({ CHANNEL_RETENTION: '86400', AGENTS_URL: 'http://127.0.0.1:9/' });
  });
  after(async () => core.dispose());

  describe('happy', () => {
    it('the purge of idle conversations removes their files; a recent conversation keeps its own', async () => {
      const repository = createDirectLineRepository(core.database);
      const day = 86400_000;
      const withFile = async (conversationId: string, at: number, fileId: string) => {
        await repository.start(conversationId, 'dl_someone', at);
        await repository.append(
          conversationId,
          at,
          (id): Activity => ({
            type: 'message',
            id,
            timestamp: new Date(at).toISOString(),
            channelId: 'directline',
            conversation: { id: conversationId },
            from: { id: 'dl_someone', role: 'user' },
          }),
          undefined,
          [{ id: fileId, name: 'old.txt', contentType: 'text/plain', size: 3, content: Buffer.from('old') }],
        );
      };
      await withFile('idle-conversation-1', Date.now() - 2 * day, 'idle-file-0000000001');
      await withFile('recent-conversation', Date.now() - day / 2, 'recent-file-000000001');
      assert.ok(await repository.findFile('idle-conversation-1', 'idle-file-0000000001'));

      const family = await startFamily(core, ['assistant-auth']);
      try {
        const read = (conversationId: string, fileId: string) =>
          fetch(
            `${family.url('assistant-auth')}/v3/directline/conversations/${conversationId}/files/${fileId}`,
            {
              headers: { authorization: `Bearer ${channelSecret(core)}` },
            },
          );
        const gone = await read('idle-conversation-1', 'idle-file-0000000001');
        assert.equal(gone.status, 404);
        assert.equal(await repository.findFile('idle-conversation-1', 'idle-file-0000000001'), undefined);
        const kept = await read('recent-conversation', 'recent-file-000000001');
        assert.equal(kept.status, 200);
        assert.equal(await kept.text(), 'old');
      } finally {
        await family.close();
      }
    });
  });
});

describe('embedded Direct Line channel: without retention, files never outlive their conversation', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore({ CHANNEL_RETENTION: '0', AGENTS_URL: 'http://127.0.0.1:9/' });
  });
  after(async () => core.dispose());

  describe('happy', () => {
    it('keeps idle conversations, and removes the files and activities of one removed otherwise', async () => {
      const repository = createDirectLineRepository(core.database);
      const longAgo = Date.now() - 400 * 86400_000;
      const withFile = async (conversationId: string, fileId: string) => {
        await repository.start(conversationId, 'dl_someone', longAgo);
        await repository.append(
          conversationId,
          longAgo,
          (id): Activity => ({
            type: 'message',
            id,
            timestamp: new Date(longAgo).toISOString(),
            channelId: 'directline',
            conversation: { id: conversationId },
            from: { id: 'dl_someone', role: 'user' },
          }),
          undefined,
          [
            {
              id: fileId,
              name: 'kept.txt',
              contentType: 'text/plain',
              size: 4,
              content: Buffer.from('kept'),
            },
          ],
        );
      };
      await withFile('kept-conversation', 'kept-file-00000000001');
      await withFile('removed-conversation', 'orphan-file-000000001');
      // Removed by anything but the purge: its rows go, its activities and files stay behind for now.
      await core.database.db
        .withTables<DirectLineTables>()
        .deleteFrom('directline_conversations')
        .where('id', '=', 'removed-conversation')
        .execute();
      assert.ok(await repository.findFile('removed-conversation', 'orphan-file-000000001'));

      const family = await startFamily(core, ['assistant-auth']);
      try {
        assert.equal(await repository.findFile('removed-conversation', 'orphan-file-000000001'), undefined);
        assert.deepEqual(await repository.listAfter('removed-conversation', 0, 10), []);
        assert.ok(
          await repository.findFile('kept-conversation', 'kept-file-00000000001'),
          'no retention: kept',
        );
        assert.equal((await repository.listAfter('kept-conversation', 0, 10)).length, 1);
      } finally {
        await family.close();
      }
    });
  });
});
