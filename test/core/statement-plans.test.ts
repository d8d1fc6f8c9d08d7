import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { readCaptured, shape } from '../../scripts/captured-statements.mjs';
import type { Dialect } from '../../src/core/db/database.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

/**
 * Every statement the product issues (queries/captured.<dialect>.sql, from `npm run queries`) is planned
 * on a store whose tables that grow with users, devices, bookmarks or conversations hold enough rows that
 * a missing index shows: a sequential scan of one of them fails the test. PostgreSQL plans each as the generic plan a prepared
 * statement gets (plan_cache_mode = force_generic_plan), so the argument values do not matter; SQLite's
 * EXPLAIN QUERY PLAN answers the same question (its planner takes an index whenever one serves).
 */

/** The tables that grow with the platform (docs/retention.md): a full scan of one is a bug at scale. */
const growing = [
  'accounts',
  'users',
  'devices',
  'sessions',
  'bookmarks',
  'ratings',
  'subscriptions',
  'audit_log',
  'mail_outbox',
  'registration_requests',
  'ad_contacts',
  'login_failures',
  'rate_limit_counters',
  'assistant_users',
  'assistant_callback_nonces',
  'directline_conversations',
  'directline_activities',
  'directline_uploads',
  'agent_confirmations',
  'agent_chat_history',
  'device_grants',
  'device_commands',
  'command_streams',
];

/** Scans that are the point of their statement, each with why it is acceptable. */
const allowed: Array<{ match: RegExp; reason: string }> = [
  {
    match: /^delete from "directline_(activities|uploads)" where not exists/,
    reason:
      "the Direct Line purge's orphan sweep (at most hourly, not on a request): it looks for rows whose conversation went, which only reading them all can find",
  },
  {
    match: /^select count\(\*\) as "files", sum\("size"\) as "bytes" from "directline_uploads"$/,
    reason:
      'the store-wide upload quota on each upload: DIRECTLINE_UPLOAD_STORE_BYTES bounds the table it reads (1 GiB by default)',
  },
];

/** Rows per growing table: enough that PostgreSQL's planner prefers an index wherever one serves. */
const ROWS = 20_000;

/**
 * The committed list, and what this test run's other tests issued (the test
 * command records it: scripts/test.mjs): a statement no capture flow runs is planned all the same, and named.
 */
function statementsOf(dialect: Dialect): string[] {
  const file = new URL(`../../queries/captured.${dialect}.sql`, import.meta.url);
  const captured = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('--'));
  const known = new Set(captured.map(shape));
  const issued = readCaptured(process.env.SINTONIA_CAPTURE_SQL)[dialect];
  const unlisted = issued.filter((text) => !known.has(shape(text)));
  if (unlisted.length > 0) {
    process.stdout.write(
      `# ${unlisted.length} statements this run's tests issued are not in queries/captured.${dialect}.sql (npm run queries), planned here too:\n#  ${unlisted.join('\n#  ')}\n`,
    );
  }
  return [...new Set([...captured, ...unlisted])];
}

/** Fills every growing table with ROWS rows, every value distinct (`v<n>` or n), foreign keys met. */
async function seedLarge(core: TestCore): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select table_name, column_name, data_type from information_schema.columns
    where table_schema = 'public' order by table_name, ordinal_position`.execute(core.database.db);
  // Referenced tables first: every text column of row n is 'v<n>', so a reference finds its row.
  const order = [
    'accounts',
    'assistant_users',
    ...growing.filter((t) => t !== 'accounts' && t !== 'assistant_users'),
  ];
  for (const table of order) {
    const columns = rows.filter((row) => row.table_name === table);
    const values = columns.map((column) => (column.data_type === 'text' ? sql`'v' || g` : sql`g`));
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c.column_name)))})
      select ${sql.join(values)} from generate_series(1, ${sql.lit(ROWS)}) g`.execute(core.database.db);
  }
  await sql`analyze`.execute(core.database.db);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function seqScans(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' && node['Relation Name'] ? [node['Relation Name']] : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScans)];
}

async function postgresScans(core: TestCore, text: string): Promise<string[]> {
  const pool = core.database.postgres;
  assert.ok(pool);
  const client = await pool.connect();
  try {
    await client.query('set plan_cache_mode = force_generic_plan');
    await client.query(`prepare planned as ${text}`);
    try {
      const count = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
      const args = count > 0 ? `(${Array(count).fill('null').join(', ')})` : '';
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `explain (format json) execute planned${args}`,
      );
      const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
      assert.ok(plan, `no plan for ${text}`);
      return seqScans(plan);
    } finally {
      await client.query('deallocate planned');
    }
  } finally {
    client.release();
  }
}

function sqliteScans(core: TestCore, text: string): string[] {
  const connection = core.database.sqlite;
  assert.ok(connection);
  const count = (text.match(/\?/g) ?? []).length;
  const rows = connection.prepare(`explain query plan ${text}`).all(...Array(count).fill(null)) as Array<{
    detail: string;
  }>;
  // `SCAN t` (or `SCAN t AS x`, `… USING COVERING INDEX`) reads the whole table or index; `SEARCH` does not.
  return rows.flatMap((row) => /^SCAN (\w+)/.exec(row.detail)?.slice(1, 2) ?? []);
}

describe('every statement the product issues is index-backed at scale', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
    if (core.database.dialect === 'postgres') await seedLarge(core);
  });
  after(async () => core.dispose());

  it('no statement scans a table that grows with users, devices, bookmarks or conversations', async () => {
    const dialect = core.database.dialect;
    const statements = statementsOf(dialect);
    assert.ok(statements.length > 50, `only ${statements.length} statements: run npm run queries`);
    const failures: string[] = [];
    const excused: string[] = [];
    for (const text of statements) {
      const scans = (
        dialect === 'postgres' ? await postgresScans(core, text) : sqliteScans(core, text)
      ).filter((table) => growing.includes(table));
      if (scans.length === 0) continue;
      const excuse = allowed.find((entry) => entry.match.test(text));
      if (excuse) excused.push(`${scans.join(', ')}: ${excuse.reason}`);
      else failures.push(`scans ${[...new Set(scans)].join(', ')}: ${text}`);
    }
    if (excused.length > 0) process.stdout.write(`# scans allowed:\n#  ${excused.join('\n#  ')}\n`);
    process.stdout.write(`# ${statements.length} statements planned on ${dialect}\n`);
    assert.deepEqual(failures, [], `sequential scans at scale:\n  ${failures.join('\n  ')}`);
  });
});
