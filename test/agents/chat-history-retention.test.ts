import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AgentTables } from '../../src/agents/tables.ts';
import { startFamily } from '../../src/family.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';

const DAY = 86400_000;

function turn(id: string, createdAt: number) {
  return {
    id,
    owner_hash: 'owner',
    turn_id: `turn-${id}`,
    position: 0,
    message: JSON.stringify({ role: 'user', content: id }),
    tokens: 5,
    created_at: createdAt,
  };
}

describe('retention: the agents server forgets chat turns past CHAT_HISTORY_RETENTION', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore({ CHAT_HISTORY_RETENTION: String(7 * 86400), RETENTION_BATCH_PAUSE_MS: '0' });
  });
  after(async () => core.dispose());

  describe('happy', () => {
    it('once the server runs, turns older than the retention are gone and recent ones stay', async () => {
      const db = core.database.db.withTables<AgentTables>();
      const now = Date.now();
      await db
        .insertInto('agent_chat_history')
        .values([turn('eight-days-old', now - 8 * DAY), turn('yesterday', now - DAY), turn('now', now)])
        .execute();
      const family = await startFamily(core, ['agents']);
      try {
        const ids = async () =>
          (await db.selectFrom('agent_chat_history').select('id').orderBy('id').execute()).map(
            (row) => row.id,
          );
        await until(async () => ((await ids()).length === 2 ? true : undefined), 'the retention pass');
        assert.deepEqual(await ids(), ['now', 'yesterday']);
      } finally {
        await family.close();
      }
    });
  });
});
