import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { sample } from '../helpers/metrics-text.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';
import { until } from '../helpers/until.ts';

/**
 * COMMAND_STREAMS bounds the command streams one process holds; a device's own second stream still
 * replaces its first. A stream's record in the store tells every process whether the device is connected:
 * one the store failed to delete as its stream ended must not be kept fresh by its process's refresh for
 * as long as that process runs (the device would read as connected, commands to it accepted, never sent).
 */
describe('client-api: command streams per process (COMMAND_STREAMS) and their records', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let base: string;
  let metricsUrl: string;
  let operatorKey: string;
  let tokens: Record<string, string>;
  const open: SseStream[] = [];

  before(async () => {
    const started = await startTestFamily(['client-api'], {
      SINTONIA_DEMO: '0',
      COMMAND_STREAMS: '2',
      COMMAND_STREAM_KEEPALIVE: '1',
    });
    ({ core, close } = started);
    base = `${started.family.url('client-api')}/api/v1`;
    metricsUrl = `${started.family.url('client-api')}/metrics`;
    operatorKey = (await core.apiKeys.create('backoffice', 'stream limits')).key;
    tokens = await signedInHousehold(core, base, {
      accountNumber: 'csl-1',
      email: 'csl-1@example.test',
      devices: [
        ['tv-1', 'One'],
        ['tv-2', 'Two'],
        ['tv-3', 'Three'],
      ],
    });
  });
  after(async () => {
    for (const stream of open) stream.close();
    await close();
  });

  const stream = async (device: string) => {
    const opened = await openSse(`${base}/smarttv/${device}/commands`, {
      authorization: `Bearer ${tokens[device]}`,
    });
    open.push(opened);
    return opened;
  };

  const send = async (device: string) => {
    const answer = await fetch(`${base}/accounts/csl-1/devices/${device}/commands`, {
      method: 'POST',
      headers: { 'x-api-key': operatorKey, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ type: 'stop' }),
    });
    return { status: answer.status, body: (await answer.json()) as { errors?: Array<{ type: string }> } };
  };
  const openStreams = async () => {
    const metrics = await fetch(metricsUrl, { headers: { 'x-api-key': operatorKey } });
    return sample(await metrics.text(), 'sintonia_command_streams_open');
  };
  const records = (device: string) =>
    core.database.db
      .withTables<{ command_streams: { account_number: string; device_id: string; seen_at: number } }>()
      .selectFrom('command_streams')
      .select('seen_at')
      .where('account_number', '=', 'csl-1')
      .where('device_id', '=', device)
      .execute();

  /** The store refuses to delete any stream record while it stands (a failing store, for this table only). */
  async function refuseDeletes(): Promise<() => Promise<void>> {
    const db = core.database.db;
    if (core.database.dialect === 'postgres') {
      await sql`create function keep_stream_records() returns trigger language plpgsql as $$
        begin raise exception 'the store is failing'; end $$`.execute(db);
      await sql`create trigger keep_stream_records before delete on command_streams
        for each row execute function keep_stream_records()`.execute(db);
      return async () => {
        await sql`drop trigger keep_stream_records on command_streams`.execute(db);
        await sql`drop function keep_stream_records()`.execute(db);
      };
    }
    await sql`create trigger keep_stream_records before delete on command_streams
      begin select raise(abort, 'the store is failing'); end`.execute(db);
    return async () => {
      await sql`drop trigger keep_stream_records`.execute(db);
    };
  }

  describe('errors', () => {
    it('one stream more than COMMAND_STREAMS is 503 COMMAND_STREAMS_FULL with Retry-After, counted in /metrics', async () => {
      for (const device of ['tv-1', 'tv-2']) {
        const held = await stream(device);
        assert.equal(held.status, 200, held.body);
        await held.comment('connected');
      }
      const refused = await stream('tv-3');
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.equal(JSON.parse(refused.body).errors[0].type, 'COMMAND_STREAMS_FULL');
      const metrics = await fetch(metricsUrl, { headers: { 'x-api-key': operatorKey } });
      const text = await metrics.text();
      assert.equal(sample(text, 'sintonia_limit_refusals_total', { limit: 'command_streams' }), 1);
      assert.equal(sample(text, 'sintonia_command_streams_open'), 2);
    });
  });

  describe('happy', () => {
    it("a held device's second stream replaces its first even when the process is full", async () => {
      const again = await stream('tv-1');
      assert.equal(again.status, 200, again.body);
      await again.comment('connected');
      assert.equal((await send('tv-1')).status, 202);
      assert.equal(JSON.parse((await again.next()).data).type, 'stop');
    });
  });

  describe('records', () => {
    it('a record the store failed to delete as its stream ended is deleted at a later keep-alive: the device reads as not connected', async () => {
      /** For `until`: true once `check` holds. */
      const once = (check: () => Promise<boolean>) => async () => (await check()) || undefined;
      for (const held of open) held.close();
      await until(
        once(async () => (await openStreams()) === 0),
        'no stream held',
      );
      // Another device's stream held here: the process refreshes its records at each keep-alive.
      const other = await stream('tv-2');
      const tv = await stream('tv-3');
      await tv.comment('connected');
      const restore = await refuseDeletes();
      tv.close();
      await until(
        once(async () => (await openStreams()) === 1),
        'the stream closed',
      );
      // Keep-alives pass while the store fails: the record stays, refreshed with the other's.
      const closedAt = Date.now();
      const refreshed = async () =>
        (await records('tv-3')).some((row) => Number(row.seen_at) > closedAt + 1000);
      await until(once(refreshed), 'a keep-alive after the close');
      await restore();
      await until(
        once(async () => (await records('tv-3')).length === 0),
        'the record deleted',
        20_000,
      );
      const refused = await send('tv-3');
      assert.equal(refused.status, 409);
      assert.equal(refused.body.errors?.[0]?.type, 'DEVICE_NOT_CONNECTED');
      other.close();
    });

    it('the device holding its stream again reads as connected and gets its command', async () => {
      const tv = await stream('tv-3');
      assert.equal(tv.status, 200, tv.body);
      assert.equal((await send('tv-3')).status, 202);
      assert.equal(JSON.parse((await tv.next()).data).type, 'stop');
      assert.equal((await records('tv-3')).length, 1);
    });
  });
});
