import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pg from 'pg';
import { type Statement, type StatementPipeline, statementPipeline } from '../../src/core/db/pipeline.ts';
import { testDatabase } from '../helpers/harness.ts';

const url = process.env.TEST_DATABASE_URL ?? '';

/**
 * The writes' pipeline (pipeline.ts with `alone`): each turn's statements in one transaction, answered when
 * it commits; a transaction that rolls back runs each statement again alone (here on a client of its own,
 * as the product does on the pool), so every statement answers as it would have alone.
 */
describe('the writes pipeline: one transaction per turn (PostgreSQL)', {
  skip: testDatabase === 'sqlite' ? 'the embedded store runs its statements on its own connection' : false,
}, () => {
  let admin: pg.Client;
  let pipeline: StatementPipeline;
  const alone: Statement[] = [];
  const writesPipeline = (connections: number) =>
    statementPipeline({
      connectionString: url,
      connections,
      types: pg.types,
      connectionTimeoutMillis: 2000,
      applicationName: 'write-pipeline-test',
      alone: async (statement) => {
        alone.push(statement);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return await client.query(statement);
        } finally {
          await client.end();
        }
      },
    });

  before(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('create table if not exists write_pipeline_test (id int primary key, note text)');
    pipeline = writesPipeline(2);
  });
  beforeEach(async () => {
    alone.length = 0;
    await admin.query('truncate write_pipeline_test');
  });
  after(async () => {
    await pipeline.close();
    await admin.query('drop table if exists write_pipeline_test');
    await admin.end();
  });

  const insert = (id: number, note = `row ${id}`) =>
    pipeline.query<{ id: number; xid: string }>({
      name: 'write_pipeline_insert',
      text: 'insert into write_pipeline_test values ($1, $2) returning id, xmin::text as xid',
      values: [id, note],
    });
  const stored = async () =>
    (await admin.query<{ id: number }>('select id from write_pipeline_test order by id')).rows.map(
      (row) => row.id,
    );

  it("commits one turn's writes together, each answered with its own rows once they are there to see", async () => {
    const oneTurn = await Promise.all([1, 2, 3, 4].map((id) => insert(id)));
    assert.deepEqual(
      oneTurn.map((result) => [result.command, result.rowCount, result.rows[0]?.id]),
      [1, 2, 3, 4].map((id) => ['INSERT', 1, id]),
    );
    const transactions = new Set(oneTurn.map((result) => result.rows[0]?.xid));
    assert.equal(transactions.size, 1, 'one transaction for the turn');
    assert.deepEqual(await stored(), [1, 2, 3, 4], 'committed when answered');
    const later = await insert(5);
    assert.notEqual(later.rows[0]?.xid, oneTurn[0]?.rows[0]?.xid, 'the next turn, a transaction of its own');
    assert.deepEqual(alone, [], 'nothing ran again');
  });

  it("holds a transaction open while its connection's last commit is unanswered: the next turns' writes commit together", async () => {
    // A commit that takes 300 ms: a deferred trigger sleeps in it.
    await admin.query(`create table write_pipeline_slow (id int);
      create function write_pipeline_slow() returns trigger language plpgsql as
        $$ begin perform pg_sleep(0.3); return null; end $$;
      create constraint trigger write_pipeline_slow after insert on write_pipeline_slow
        deferrable initially deferred for each row execute function write_pipeline_slow()`);
    const one = writesPipeline(1);
    try {
      const slow = one.query<{ xid: string }>({
        text: 'insert into write_pipeline_slow values (1) returning xmin::text as xid',
      });
      const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
      await nextTurn();
      const written = [];
      for (const id of [41, 42, 43]) {
        written.push(
          one.query<{ xid: string }>({
            text: 'insert into write_pipeline_test values ($1) returning xmin::text as xid',
            values: [id],
          }),
        );
        await nextTurn();
      }
      const [first, ...held] = (await Promise.all([slow, ...written])).map((result) => result.rows[0]?.xid);
      assert.equal(new Set(held).size, 1, 'three turns, one transaction');
      assert.notEqual(held[0], first);
      assert.deepEqual(await stored(), [41, 42, 43]);
      // Closed while a transaction is held open: it commits.
      const slowAgain = one.query({ text: 'insert into write_pipeline_slow values (2)' });
      await nextTurn();
      const last = one.query({ text: 'insert into write_pipeline_test values (44)' });
      await nextTurn();
      await one.close();
      assert.equal((await Promise.all([slowAgain, last]))[1].rowCount, 1);
      assert.deepEqual(await stored(), [41, 42, 43, 44]);
      assert.deepEqual(alone, [], 'nothing ran again');
      // Lost under the commit a held transaction waits on: that commit's writes fail (committed or not is
      // unknown), the held transaction's were never committed and each runs again alone.
      const other = writesPipeline(1);
      try {
        const unknown = other.query({ text: 'insert into write_pipeline_slow values (3)' });
        await nextTurn();
        const heldWrite = other.query({ text: 'insert into write_pipeline_test values (45)' });
        await nextTurn();
        for (let killed = 0, deadline = Date.now() + 5000; killed === 0; ) {
          const { rows } = await admin.query<{ killed: boolean }>(
            `select pg_terminate_backend(pid) as killed from pg_stat_activity
              where application_name = 'write-pipeline-test' and query = 'commit' and state = 'active'`,
          );
          killed = rows.filter((row) => row.killed).length;
          if (killed === 0 && Date.now() > deadline) assert.fail('the commit was never seen running');
        }
        const [lost, kept] = await Promise.allSettled([unknown, heldWrite]);
        assert.equal(lost.status, 'rejected');
        assert.equal(kept.status === 'fulfilled' && kept.value.rowCount, 1);
        assert.deepEqual(await stored(), [41, 42, 43, 44, 45]);
        assert.equal(alone.length, 1, 'the held write ran again alone');
      } finally {
        await other.close();
      }
    } finally {
      await one.close();
      await admin.query('drop table write_pipeline_slow; drop function write_pipeline_slow()');
    }
  });

  it('fails only the statement that fails: the others of its turn are run again alone and kept', async () => {
    await insert(10);
    const results = await Promise.allSettled([insert(11), insert(10, 'a second row 10'), insert(12)]);
    assert.deepEqual(
      results.map((result) => (result.status === 'fulfilled' ? result.value.rows[0]?.id : result.status)),
      [11, 'rejected', 12],
    );
    const failed = results[1];
    assert.equal(failed?.status === 'rejected' && (failed.reason as { code?: string }).code, '23505');
    assert.deepEqual(await stored(), [10, 11, 12]);
    assert.equal(alone.length, 3, 'the rolled-back turn ran again, statement by statement');
    assert.deepEqual(await Promise.all([insert(13), insert(14)]).then(() => stored()), [10, 11, 12, 13, 14]);
  });

  it('runs again alone the statements of a turn whose connection was given up before its commit', async () => {
    await insert(30);
    // Values that are not an array: node-postgres refuses that statement before sending it, and the
    // pipeline gives its connection up in the middle of the turn, with the two inserts already sent on it.
    const refused = pipeline.query({
      text: 'insert into write_pipeline_test values ($1)',
      values: 'not an array' as unknown as unknown[],
    });
    const results = await Promise.allSettled([insert(31), refused, insert(32)]);
    assert.deepEqual(
      results.map((result) => (result.status === 'fulfilled' ? result.value.rows[0]?.id : result.status)),
      [31, 'rejected', 32],
    );
    const failed = results[1];
    assert.match(failed?.status === 'rejected' ? String(failed.reason) : '', /must be an array/);
    assert.deepEqual(await stored(), [30, 31, 32], 'what the turn answered is there to see');
    assert.equal(alone.length, 3, 'nothing of the turn was committed: each ran again alone');
  });

  it('fails the statements of a turn whose connection is lost, keeps none and runs none again', async () => {
    // A client of its own holds the row: in a transaction, pg_stat_activity would be read once and kept.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query('begin');
    await holder.query('insert into write_pipeline_test values (20)');
    // The turn's first insert waits on the open transaction's row; then its connection is killed.
    const turn = Promise.allSettled([insert(21), insert(20)]);
    let killed = 0;
    try {
      for (const deadline = Date.now() + 5000; killed === 0; ) {
        const { rows } = await admin.query<{ killed: boolean }>(
          `select pg_terminate_backend(pid) as killed from pg_stat_activity
            where application_name = 'write-pipeline-test' and wait_event_type = 'Lock'`,
        );
        killed = rows.filter((row) => row.killed).length;
        if (killed === 0 && Date.now() > deadline) assert.fail('the turn never waited on the lock');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    const results = await turn;
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual(alone, [], 'whether it committed is unknown: nothing runs again');
    assert.deepEqual(await stored(), []);
    assert.equal((await insert(22)).rows[0]?.id, 22, 'the next turn on a new connection');
  });
});
