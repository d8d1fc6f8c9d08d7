import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { deviceToken, householdAccount } from '../helpers/household.ts';
import { serveClientApis } from '../helpers/processes.ts';

const BASE = '/api/v1';
const DEVICES = 6;

/**
 * The stream limit across two real `sintonia serve` processes on one store (SQLite file or PostgreSQL):
 * devices starting at once through both never pass the limit together, and what one process records
 * (a start, a stop, a limit) the other answers at once.
 */
describe('playback streams across two processes', () => {
  let core: TestCore;
  let operatorKey: string;
  let userHash: string;
  let urls: string[] = [];
  let stopServing = async () => {};
  const tokens: string[] = [];

  before(async () => {
    core = await createTestCore({ SINTONIA_DEMO: '0' });
    userHash = await householdAccount(core, { accountNumber: 'pr-1', email: 'pr-1@example.test' });
    operatorKey = (await core.apiKeys.create('backoffice', 'playback race test')).key;
    ({ urls, stop: stopServing } = await serveClientApis(core.env));
    for (let index = 0; index < DEVICES; index++) {
      tokens.push(await deviceToken(`${urls[index % 2]}${BASE}`, 'pr-1@example.test', `d-${index}`));
    }
  });

  after(async () => {
    await stopServing();
    await core.dispose();
  });

  const call = async (which: number, method: string, path: string, auth: Record<string, string>) => {
    const response = await fetch(`${urls[which] ?? ''}${BASE}${path}`, { method, headers: auth });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const start = (device: number, contentId: number) =>
    call(device % 2, 'PUT', `/smarttv/d-${device}/users/${userHash}/playback/${contentId}?offset=0`, {
      authorization: `Bearer ${tokens[device]}`,
    });
  const stop = (which: number, device: number) =>
    call(which, 'DELETE', `/smarttv/d-${device}/users/${userHash}/playback`, {
      authorization: `Bearer ${tokens[device]}`,
    });
  const watching = (which: number) =>
    call(which, 'GET', '/accounts/pr-1/playback', { 'x-api-key': operatorKey });

  it(`with a limit of 1, ${DEVICES} devices starting at once through both processes: exactly one wins`, async () => {
    const set = await call(1, 'PUT', '/accounts/pr-1/stream-limit/1', { 'x-api-key': operatorKey });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(
        Array.from({ length: DEVICES }, (_, device) => start(device, 500 + round)),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [200, ...Array(DEVICES - 1).fill(409)], `round ${round}`);
      const refused = answers.find((answer) => answer.status === 409);
      assert.deepEqual(
        ((refused?.body.errors ?? []) as Array<{ type: string }>).map((error) => error.type),
        ['STREAM_LIMIT_REACHED'],
      );
      const winner = answers.findIndex((answer) => answer.status === 200);
      // Both processes see the one stream; the stop through the other process frees the place for both.
      for (const which of [0, 1]) {
        const streams = (await watching(which)).body.streams as Array<{
          deviceId: string;
          contentId: number;
        }>;
        assert.deepEqual(
          streams.map((stream) => [stream.deviceId, stream.contentId]),
          [[`d-${winner}`, 500 + round]],
        );
      }
      assert.equal((await stop(1 - (winner % 2), winner)).status, 204);
      assert.deepEqual((await watching(winner % 2)).body.streams, []);
    }
  });

  it('a limit set through one process holds on the other', async () => {
    assert.equal(
      (await call(0, 'PUT', '/accounts/pr-1/stream-limit/2', { 'x-api-key': operatorKey })).status,
      200,
    );
    assert.equal((await start(1, 1)).status, 200);
    assert.equal((await start(2, 1)).status, 200);
    assert.equal((await start(3, 1)).status, 409);
    assert.equal((await watching(1)).body.limit, 2);
  });
});
