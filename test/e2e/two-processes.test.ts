import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { deviceToken, householdAccount } from '../helpers/household.ts';
import { serveClientApis } from '../helpers/processes.ts';

const BASE = '/api/v1';

/**
 * Two real `sintonia serve` processes on one store (SQLite file or PostgreSQL database), as behind a load
 * balancer: a token signed by one is honoured by the other, a session closed through one is refused by the
 * other on its very next request, and saves through both at once all land.
 */
describe('two client-api processes on one store', () => {
  let core: TestCore;
  let operatorKey: string;
  let userHash: string;
  let urls: string[] = [];
  let stopServing = async () => {};

  before(async () => {
    core = await createTestCore({ SINTONIA_DEMO: '0' });
    userHash = await householdAccount(core, {
      accountNumber: 'tp-1',
      email: 'tp-1@example.test',
      profiles: [],
    });
    operatorKey = (await core.apiKeys.create('backoffice', 'two-processes test')).key;
    ({ urls, stop: stopServing } = await serveClientApis(core.env));
  });

  after(async () => {
    await stopServing();
    await core.dispose();
  });

  const url = (which: number, path: string) => `${urls[which] ?? ''}${BASE}${path}`;

  const signIn = (which: number, deviceId: string) =>
    deviceToken(url(which, ''), 'tp-1@example.test', deviceId);

  const call = async (which: number, method: string, path: string, token: string) => {
    const response = await fetch(url(which, path), { method, headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const save = (
    which: number,
    token: string,
    device: string,
    contentId: number,
    offset: number,
    at?: number,
  ) =>
    call(
      which,
      'POST',
      `/smarttv/${device}/users/${userHash}/bookmarks/${contentId}/${offset}${at === undefined ? '' : `?at=${new Date(at).toISOString()}`}`,
      token,
    );
  const read = (which: number, token: string, contentId: number) =>
    call(which, 'GET', `/smarttv/users/${userHash}/bookmarks/${contentId}`, token);
  const devices = (which: number, token: string) => call(which, 'GET', '/accounts/tp-1/devices', token);

  it("each process honours the other's tokens", async () => {
    const fromA = await signIn(0, 'tv-a');
    const fromB = await signIn(1, 'tv-b');
    for (const which of [0, 1]) {
      for (const [token, device] of [
        [fromA, 'tv-a'],
        [fromB, 'tv-b'],
      ] as const) {
        assert.equal((await save(which, token, device, 1, 10 + which)).status, 200);
        assert.equal((await read(which, token, 1)).status, 200);
        assert.equal((await devices(which, token)).status, 200);
      }
    }
  });

  it('concurrent saves through both processes: every one lands, and the newest position wins', async () => {
    const tokens = [await signIn(0, 'tv-c'), await signIn(1, 'tv-d')];
    const device = (which: number) => (which === 0 ? 'tv-c' : 'tv-d');
    // Distinct bookmarks, half through each process, all at once.
    const distinct = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        save(index % 2, tokens[index % 2] ?? '', device(index % 2), 1000 + index, index),
      ),
    );
    assert.deepEqual(
      distinct.map((answer) => answer.status),
      distinct.map(() => 200),
    );
    // One bookmark, raced through both processes with increasing client times.
    const start = Date.now() - 60_000;
    const raced = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        save(index % 2, tokens[index % 2] ?? '', device(index % 2), 5000, index, start + index * 100),
      ),
    );
    assert.deepEqual(
      raced.map((answer) => answer.status),
      raced.map(() => 200),
    );
    for (const which of [0, 1]) {
      const other = tokens[1 - which] ?? '';
      for (let index = 0; index < 200; index++) {
        const found = await read(which, other, 1000 + index);
        assert.equal(found.status, 200, `bookmark ${1000 + index} through process ${which}`);
        assert.equal(found.body.offset, index);
      }
      const newest = await read(which, other, 5000);
      assert.equal(newest.body.offset, 99, 'the newest position of the race');
      assert.equal(newest.body.at, new Date(start + 99 * 100).toISOString());
    }
  });

  it('a session closed through one process is refused by the other on its very next request', async () => {
    for (const [closer, other] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const device = `tv-x${closer}`;
      const token = await signIn(other, device);
      // The other process has just served this session, so whatever it keeps of it is warm.
      assert.equal((await read(other, token, 1)).status, 200);
      assert.equal((await devices(other, token)).status, 200);
      assert.equal((await save(other, token, device, 7, 1)).status, 200);
      const closed = await fetch(url(closer, `/accounts/tp-1/devices/${device}/sessions`), {
        method: 'DELETE',
        headers: { 'x-api-key': operatorKey },
      });
      assert.equal(closed.status, 204);
      const answers = [
        await save(other, token, device, 7, 999),
        await read(other, token, 1),
        await devices(other, token),
        await read(closer, token, 1),
      ];
      for (const answer of answers) {
        assert.equal(answer.status, 401, JSON.stringify(answer.body));
        const types = (answer.body.errors as Array<{ type: string }> | undefined)?.map((error) => error.type);
        assert.deepEqual(types, ['TOKEN_INVALID']);
      }
      const operatorRead = await fetch(url(closer, `/smarttv/users/${userHash}/bookmarks/7`), {
        headers: { 'x-api-key': operatorKey },
      });
      assert.equal(
        ((await operatorRead.json()) as { offset: number }).offset,
        1,
        'the refused save wrote nothing',
      );
    }
  });
});
