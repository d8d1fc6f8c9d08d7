import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/core/config.ts';
import { type Core, openCore } from '../../src/core/core.ts';
import { MAX_PAYLOAD_BYTES } from '../../src/core/events/event-bus.ts';
import { createTestCore, type TestCore, testDatabase } from '../helpers/harness.ts';

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition') => {
  for (const deadline = Date.now() + timeoutMs; !(await condition()); ) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

/** Everything one subscriber saw: payloads in order, and how often it was told to resync. */
function recorder(core: Core, topic: string) {
  const seen: string[] = [];
  let resyncs = 0;
  const unsubscribe = core.events.subscribe(topic, (payload) => seen.push(payload), {
    resync: () => {
      resyncs += 1;
    },
  });
  return {
    seen,
    get resyncs() {
      return resyncs;
    },
    unsubscribe,
  };
}

describe(`core.events between two processes of one store (${testDatabase})`, () => {
  let core: TestCore;
  let other: Core;
  before(async () => {
    core = await createTestCore();
    // Another process on the same store, with the same master key (it would be refused otherwise).
    other = await openCore(loadConfig(core.env as NodeJS.ProcessEnv));
  });
  after(async () => {
    await other.close();
    await core.dispose();
  });

  /** The listening connections on this test's database (PostgreSQL). */
  const listeners = async () => {
    const { rows } = await sql<{ pid: number; application_name: string; query: string }>`
      select pid, application_name, query from pg_stat_activity
      where datname = current_database() and application_name like 'sintonia-events%'`.execute(
      core.database.db,
    );
    return rows;
  };

  it('a published event reaches every subscriber, in this process and the other, exactly once', async () => {
    const here = recorder(core, 'test.a');
    const there = recorder(other, 'test.a');
    const unrelated = recorder(other, 'test.b');
    await until(() => here.resyncs === 1 && there.resyncs === 1, 10_000, 'both told to catch up once');
    core.events.publish('test.a', 'one');
    assert.deepEqual(here.seen, ['one'], 'delivered in this process at once');
    // Events of two processes have no order between them: the second is published once the first arrived.
    await until(() => there.seen.length === 1, 5_000, 'the other process sees it');
    other.events.publish('test.a', 'two');
    await until(() => here.seen.length === 2 && there.seen.length === 2, 5_000, 'both see both');
    await settle();
    assert.deepEqual(here.seen, ['one', 'two']);
    assert.deepEqual(there.seen, ['one', 'two'], 'its own event once, not again when it comes back');
    assert.deepEqual(unrelated.seen, []);
    // A burst of one turn (packed into a few NOTIFYs): every event once, in order.
    const burst = Array.from({ length: 600 }, (_, index) => `conversation-${index}-${'x'.repeat(40)}`);
    for (const payload of burst) core.events.publish('test.a', payload);
    core.events.publish('test.a', burst[0] ?? '');
    burst.push(burst[0] ?? '');
    await until(() => there.seen.length >= 2 + burst.length, 10_000, 'the burst arrives');
    await settle();
    assert.deepEqual(there.seen.slice(2), burst);
    for (const subscriber of [here, there, unrelated]) subscriber.unsubscribe();
    core.events.publish('test.a', 'after');
    await settle();
    assert.equal(there.seen.includes('after'), false, 'unsubscribed');
  });

  it('a payload too large for NOTIFY is delivered in its own process only', async () => {
    const here = recorder(core, 'test.large');
    const there = recorder(other, 'test.large');
    await until(() => here.resyncs === 1 && there.resyncs === 1);
    const large = 'y'.repeat(MAX_PAYLOAD_BYTES + 1);
    core.events.publish('test.large', large);
    core.events.publish('test.large', 'small');
    await until(() => there.seen.includes('small'), 5_000, 'the small one arrives');
    await settle();
    assert.deepEqual(here.seen, [large, 'small']);
    assert.deepEqual(
      there.seen,
      testDatabase === 'postgres' ? ['small'] : [large, 'small'],
      'in process (SQLite) everything arrives',
    );
    here.unsubscribe();
    there.unsubscribe();
  });

  it('opens one listening connection per process, and only once something subscribes', {
    skip: testDatabase === 'sqlite' ? 'in process on the embedded store: no connection' : false,
  }, async () => {
    const idle = await openCore(loadConfig(core.env as NodeJS.ProcessEnv));
    try {
      const before = (await listeners()).length;
      idle.events.publish('test.c', 'publishing needs no listener');
      await settle();
      assert.equal((await listeners()).length, before, 'an admin command that only publishes never listens');
      const first = recorder(idle, 'test.c');
      const second = recorder(idle, 'test.d');
      await until(async () => (await listeners()).length === before + 1, 10_000, 'one more listener');
      await settle();
      const rows = await listeners();
      assert.equal(rows.length, before + 1, 'one connection for both subscriptions');
      for (const row of rows) assert.match(row.query, /^LISTEN /);
      first.unsubscribe();
      second.unsubscribe();
    } finally {
      await idle.close();
    }
  });

  it('after its listening connection is killed, a process reconnects, resyncs, and misses nothing after', {
    skip: testDatabase === 'sqlite' ? 'in process on the embedded store: no connection to lose' : false,
  }, async () => {
    const there = recorder(other, 'test.e');
    await until(() => there.resyncs === 1, 10_000, 'listening');
    const [listener] = (await listeners()).filter((row) => row.query.startsWith('LISTEN'));
    assert.ok(listener, 'a listening connection');
    const { rows } = await sql<{ killed: boolean }>`
      select pg_terminate_backend(pid) as killed from pg_stat_activity
      where datname = current_database() and query ilike 'LISTEN%'`.execute(core.database.db);
    assert.ok(rows.length >= 1 && rows.every((row) => row.killed));
    // Published while the other has no connection: the database is the truth, resync is the catch-up.
    core.events.publish('test.e', 'while down');
    await until(() => there.resyncs === 2, 15_000, 'told to catch up after the reconnect');
    await until(async () => (await listeners()).length >= 1, 10_000, 'listening again');
    core.events.publish('test.e', 'after');
    await until(() => there.seen.includes('after'), 5_000, 'events flow again');
    await settle();
    assert.equal(there.seen.filter((payload) => payload === 'after').length, 1, 'once');
    there.unsubscribe();
  });

  it('closing the core stops listening', {
    skip: testDatabase === 'sqlite' ? 'in process on the embedded store: no connection' : false,
  }, async () => {
    const closing = await openCore(loadConfig(core.env as NodeJS.ProcessEnv));
    const before = (await listeners()).length;
    recorder(closing, 'test.f');
    await until(async () => (await listeners()).length === before + 1);
    await closing.close();
    await until(async () => (await listeners()).length === before, 5_000, 'its connection closed');
  });
});
