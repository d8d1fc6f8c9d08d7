import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { postgresBin, startPostgres } from '../../scripts/pg-cluster.mjs';
import {
  PIPELINE_APPLICATION_NAME,
  STALLED_AFTER_MS,
  type StatementPipeline,
  statementPipeline,
} from '../../src/core/db/pipeline.ts';
import { testDatabase } from '../helpers/harness.ts';

const url = process.env.TEST_DATABASE_URL ?? '';
const types = pg.types;

/** How long a test waits for what should come at once: generous on a busy machine, short of any timeout. */
const PROMPTLY_MS = 10_000;

const open = (
  connections: number,
  connectionString = url,
  connectionTimeoutMillis = 2000,
): StatementPipeline => statementPipeline({ connectionString, connections, types, connectionTimeoutMillis });

/** Runs `use` on a pipeline of `connections`, closed afterwards whatever happens. */
async function withPipeline(
  connections: number,
  use: (pipeline: StatementPipeline) => Promise<void>,
  connectionString = url,
  connectionTimeoutMillis?: number,
): Promise<void> {
  const pipeline = open(connections, connectionString, connectionTimeoutMillis);
  try {
    await use(pipeline);
  } finally {
    await pipeline.close();
  }
}

/** What `promise` gives, or undefined if nothing came within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(resolve, ms, undefined);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** `select pg_backend_pid()` through the pipeline: which connection answered. */
const backendOf = async (pipeline: StatementPipeline): Promise<number> => {
  const { rows } = await pipeline.query<{ pid: number }>({ text: 'select pg_backend_pid() as pid' });
  return rows[0]?.pid ?? -1;
};

describe('the statement pipeline (PostgreSQL hot statements)', {
  skip: testDatabase === 'sqlite' ? 'the embedded store runs its statements on its own connection' : false,
}, () => {
  let admin: pg.Client;
  before(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  after(async () => {
    await admin.end();
  });

  it('answers every statement with its own rows, named or not, sent in one turn or in many', async () => {
    await withPipeline(2, async (pipeline) => {
      const named = (n: number) =>
        pipeline.query<{ n: number; square: number }>({
          name: 'pipeline_test_square',
          text: 'select $1::int as n, $1::int * $1::int as square',
          values: [n],
        });
      const oneTurn = await Promise.all(Array.from({ length: 200 }, (_, n) => named(n)));
      assert.deepEqual(
        oneTurn.map((result) => result.rows[0]),
        Array.from({ length: 200 }, (_, n) => ({ n, square: n * n })),
      );
      const manyTurns: Array<Promise<pg.QueryResult>> = [];
      for (let n = 0; n < 50; n++) {
        manyTurns.push(pipeline.query({ text: 'select $1::text as echo', values: [`value ${n}`] }));
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.deepEqual(
        (await Promise.all(manyTurns)).map((result) => result.rows[0]?.echo),
        Array.from({ length: 50 }, (_, n) => `value ${n}`),
      );
    });
  });

  it("sends one turn's statements on one connection, and opens another while it is busy, up to the limit", async () => {
    await withPipeline(2, async (pipeline) => {
      const first = await Promise.all(Array.from({ length: 20 }, () => backendOf(pipeline)));
      assert.equal(new Set(first).size, 1, `one turn, one backend: ${first.join(', ')}`);
      // A turn that starts while another turn's statement is unanswered goes to a second connection.
      const slow = pipeline.query({ text: 'select pg_sleep(0.3)' });
      await new Promise((resolve) => setImmediate(resolve));
      const second = await backendOf(pipeline);
      await slow;
      assert.equal(pipeline.connections, 2);
      const third = await Promise.all([backendOf(pipeline), backendOf(pipeline)]);
      assert.equal(new Set([...first, second, ...third]).size, 2, 'never more connections than the limit');
      const { rows } = await admin.query<{ count: number }>(
        'select count(*)::int as count from pg_stat_activity where application_name = $1',
        [PIPELINE_APPLICATION_NAME],
      );
      assert.ok((rows[0]?.count ?? 0) >= 2, 'the connections are named in pg_stat_activity');
    });
  });

  it('passes over a connection stalled behind a lock while the other can take the statements', async () => {
    await admin.query('create table if not exists pipeline_test_lock (id int primary key)');
    await admin.query('insert into pipeline_test_lock values (1) on conflict do nothing');
    await withPipeline(2, async (pipeline) => {
      await admin.query('begin');
      await admin.query('select id from pipeline_test_lock where id = 1 for update');
      try {
        const stuckOn = pipeline.query<{ pid: number }>({
          text: 'update pipeline_test_lock set id = id where id = 1 returning pg_backend_pid() as pid',
        });
        await new Promise((resolve) => setTimeout(resolve, STALLED_AFTER_MS + 100));
        // The other connection is busy (five short statements) when the next turn starts, and the stalled
        // one has fewer unanswered: the next turn must still go to the busy one.
        const busy = Array.from({ length: 5 }, () => pipeline.query({ text: 'select pg_sleep(0.05)' }));
        await new Promise((resolve) => setImmediate(resolve));
        // The lock is held until the rollback below: queued behind it, the statement would never answer.
        const answered = await within(backendOf(pipeline), PROMPTLY_MS);
        assert.ok(answered !== undefined, 'answered while the lock is still held');
        await Promise.all(busy);
        await admin.query('rollback');
        assert.notEqual((await stuckOn).rows[0]?.pid, answered, 'by the other connection');
      } catch (error) {
        await admin.query('rollback');
        throw error;
      }
    });
  });

  it('fails only the statement that fails: the others of its turn and the connection go on', async () => {
    await withPipeline(1, async (pipeline) => {
      const before = await backendOf(pipeline);
      const results = await Promise.allSettled([
        pipeline.query({ text: 'select 1 as n' }),
        pipeline.query({ text: 'select 1 / 0 as n' }),
        pipeline.query({ text: 'select 3 as n' }),
      ]);
      assert.deepEqual(
        results.map((result) => (result.status === 'fulfilled' ? result.value.rows[0]?.n : result.status)),
        [1, 'rejected', 3],
      );
      const failed = results[1];
      assert.equal(failed?.status === 'rejected' && (failed.reason as { code?: string }).code, '22012');
      assert.equal(await backendOf(pipeline), before, 'the same connection answers afterwards');
    });
  });

  it('fails the statements of a connection killed under them, and answers the next ones on a new one', async () => {
    await withPipeline(1, async (pipeline) => {
      const victim = await backendOf(pipeline);
      // Settled into a value at once: its rejection may come before the kill's own answer does.
      const inFlight = pipeline.query({ text: 'select pg_sleep(5)' }).then(
        () => 'answered',
        (error: { code?: string; message: string }) => error.code ?? error.message,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await admin.query('select pg_terminate_backend($1)', [victim]);
      assert.match(String(await inFlight), /^57P01$|^Connection terminated/, 'failed, not answered');
      let next: number | undefined;
      for (const deadline = Date.now() + 5000; next === undefined; ) {
        next = await backendOf(pipeline).catch(() => undefined);
        if (next === undefined && Date.now() > deadline) assert.fail('no answer after the kill');
      }
      assert.notEqual(next, victim);
      assert.equal(pipeline.connections, 1);
    });
  });

  it('fails statements at once when the server cannot be reached', async () => {
    const unreachable = new URL(url);
    unreachable.port = '1';
    await withPipeline(
      2,
      async (pipeline) => {
        // The connect timeout is far beyond the wait: failing within it is the refusal, not the timeout.
        const results = await within(
          Promise.allSettled([backendOf(pipeline), backendOf(pipeline)]),
          PROMPTLY_MS,
        );
        assert.ok(results, `no answer within ${PROMPTLY_MS} ms`);
        assert.deepEqual(
          results.map((result) => result.status),
          ['rejected', 'rejected'],
        );
        assert.equal(pipeline.connections, 0);
      },
      unreachable.toString(),
      10 * PROMPTLY_MS,
    );
  });

  it('works over TLS: every statement answered on an encrypted connection, turn after turn', async () => {
    const server = postgresBin();
    assert.ok(server, 'the PostgreSQL server binaries');
    const cluster = await startPostgres(server, { ssl: true, maxConnections: 20 });
    try {
      await withPipeline(
        2,
        async (pipeline) => {
          const encrypted = await pipeline.query<{ ssl: boolean }>({
            text: 'select ssl from pg_stat_ssl where pid = pg_backend_pid()',
          });
          assert.equal(encrypted.rows[0]?.ssl, true);
          for (let turn = 0; turn < 20; turn++) {
            const answers = await Promise.all(
              Array.from({ length: 25 }, (_, n) =>
                pipeline.query<{ n: number }>({
                  name: 'pipeline_test_tls',
                  text: 'select $1::int as n',
                  values: [n],
                }),
              ),
            );
            assert.deepEqual(
              answers.map((answer) => answer.rows[0]?.n),
              Array.from({ length: 25 }, (_, n) => n),
            );
          }
        },
        `${cluster.url}?sslmode=no-verify`,
      );
    } finally {
      cluster.stop();
    }
  });

  it('lets the statements on the wire finish at close, then refuses new ones', async () => {
    const pipeline = open(2);
    const slow = pipeline.query<{ n: number }>({ text: 'select pg_sleep(0.2), 7 as n' });
    await new Promise((resolve) => setImmediate(resolve));
    await pipeline.close();
    assert.equal((await slow).rows[0]?.n, 7);
    await assert.rejects(pipeline.query({ text: 'select 1' }), /closed/);
    assert.equal(pipeline.connections, 0);
  });
});
