import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore, testDatabase } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { freePort, startServe } from '../helpers/processes.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';

const BASE = '/api/v1';

type Serve = Awaited<ReturnType<typeof startServe>>;

/**
 * Two `sintonia serve` processes on one PostgreSQL, as behind a load balancer: a command posted on one
 * reaches the stream the other holds (the event bus), and "is it connected" is the store's record of the
 * streams, which a closed stream, a stopped process or a dead one (its record not refreshed) no longer has.
 */
describe('client-api: device commands across two processes on one PostgreSQL', {
  skip: testDatabase === 'sqlite' ? 'two server processes share a PostgreSQL store only' : false,
  timeout: 180_000,
}, () => {
  let core: TestCore;
  let operatorKey: string;
  let tokens: Record<string, string>;
  const urls: string[] = [];
  const processes: Serve[] = [];
  const open: SseStream[] = [];

  before(async () => {
    core = await createTestCore({ SINTONIA_DEMO: '0', COMMAND_STREAM_KEEPALIVE: '1' });
    operatorKey = (await core.apiKeys.create('backoffice', 'commands across processes')).key;
    for (let index = 0; index < 2; index++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const env = { ...core.env, CLIENT_API_PORT: String(port), LOG_LEVEL: 'warn' };
      processes.push(await startServe(['--service', 'client-api'], env, [url]));
      urls.push(`${url}${BASE}`);
    }
    tokens = await signedInHousehold(core, urls[0] ?? '', {
      accountNumber: 'cx-1',
      email: 'cx-1@example.test',
      devices: [
        ['tv-a', 'Living room TV'],
        ['tv-b', 'Bedroom TV'],
        ['tv-gone', 'Gone TV'],
        ['phone', 'Phone'],
      ],
    });
  });

  after(async () => {
    for (const stream of open) stream.close();
    for (const serve of processes) {
      if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
      await serve.exited;
    }
    await core?.dispose();
  });

  const stream = async (which: number, device: string) => {
    const opened = await openSse(`${urls[which]}/smarttv/${device}/commands`, {
      authorization: `Bearer ${tokens[device]}`,
    });
    open.push(opened);
    assert.equal(opened.status, 200, opened.body);
    await opened.comment('connected');
    return opened;
  };

  const call = async (which: number, method: string, path: string, body?: unknown, token?: string) => {
    const response = await fetch(`${urls[which]}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : { 'x-api-key': operatorKey }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  const send = (which: number, device: string, type = 'stop') =>
    call(which, 'POST', `/accounts/cx-1/devices/${device}/commands`, { type }, tokens.phone);

  /** Sends until the answer is `status` (what another process learns shortly after, not at once). */
  async function sendUntil(which: number, device: string, status: number) {
    const deadline = Date.now() + 20_000; // a ceiling for a loaded machine, not a measurement
    for (;;) {
      const answer = await call(which, 'POST', `/accounts/cx-1/devices/${device}/commands`, { type: 'stop' });
      if (answer.status === status || Date.now() > deadline) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a command posted on one process reaches the stream the other holds; its state reads the same on both', async () => {
    const tv = await stream(0, 'tv-a');
    const sent = await send(1, 'tv-a', 'pause');
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const event = await tv.next();
    assert.equal(event.event, 'command');
    assert.equal(event.id, sent.body.id);
    assert.equal(JSON.parse(event.data).type, 'pause');
    const read = await call(1, 'GET', `/accounts/cx-1/devices/tv-a/commands/${String(sent.body.id)}`);
    assert.equal(read.body.state, 'delivered');
    const acked = await call(
      0,
      'POST',
      `/smarttv/tv-a/commands/${String(sent.body.id)}/ack`,
      undefined,
      tokens['tv-a'],
    );
    assert.equal(acked.status, 204);
    const after = await call(1, 'GET', `/accounts/cx-1/devices/tv-a/commands/${String(sent.body.id)}`);
    assert.equal(after.body.state, 'acknowledged');
  });

  it('409 DEVICE_NOT_CONNECTED on either process when no process holds the stream, and once it closes', async () => {
    const none = await send(1, 'tv-b');
    assert.equal(none.status, 409);
    assert.equal((none.body.errors as Array<{ type: string }>)[0]?.type, 'DEVICE_NOT_CONNECTED');
    const tv = await stream(0, 'tv-b');
    assert.equal((await send(1, 'tv-b')).status, 202);
    await tv.next();
    tv.close();
    const closed = await sendUntil(1, 'tv-b', 409);
    assert.equal(closed.status, 409);
  });

  it("a process's stream record not refreshed for three keep-alives (a dead process) does not count", async () => {
    const streams = core.database.db.withTables<{
      command_streams: { account_number: string; device_id: string; holder: string; seen_at: number };
    }>();
    await streams
      .insertInto('command_streams')
      .values({
        account_number: 'cx-1',
        device_id: 'tv-gone',
        holder: 'dead-process',
        seen_at: Date.now() - 10_000,
      })
      .execute();
    assert.equal((await send(1, 'tv-gone')).status, 409);
    await streams
      .updateTable('command_streams')
      .set({ seen_at: Date.now() })
      .where('holder', '=', 'dead-process')
      .execute();
    assert.equal((await send(1, 'tv-gone')).status, 202, 'a fresh record counts');
  });

  it('a process that stops ends its streams cleanly and the other no longer counts them', async () => {
    const tv = await stream(0, 'tv-a');
    assert.equal((await send(1, 'tv-a')).status, 202);
    await tv.next();
    const first = processes[0];
    first?.child.kill('SIGTERM');
    await tv.ended;
    assert.equal(await first?.exited, 0);
    assert.equal((await send(1, 'tv-a')).status, 409);
  });
});
