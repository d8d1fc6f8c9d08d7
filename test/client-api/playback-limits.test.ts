import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { injectedMetrics, sample } from '../helpers/metrics-text.ts';
import {
  type AccountsFixture,
  accountsFixture,
  BASE,
  errorTypes,
  type SignedIn,
} from './accounts-fixtures.ts';
import { errorOf, readBody } from './media-formats.ts';

/**
 * The account's stream limit: PLAYBACK_STREAM_LIMIT (2 by default) unless an operator set its own with
 * PUT /accounts/{accountNumber}/stream-limit/{limit}; a start or report of a device not counted yet, when
 * the account plays its limit on other devices, is 409 STREAM_LIMIT_REACHED, and simultaneous starts at the
 * limit never both pass (this file runs on SQLite and on PostgreSQL; test/e2e/playback-race-processes.test.ts
 * across two processes).
 */
describe('playback stream limits', () => {
  let fx: AccountsFixture;
  let home: { accountNumber: string; email: string; userHash: string };
  let race: { accountNumber: string; email: string; userHash: string };
  const tokens: Record<string, SignedIn> = {};
  const RACERS = 6;

  before(async () => {
    fx = await accountsFixture();
    home = await fx.account('acc-limit');
    race = await fx.account('acc-race');
    for (const device of ['tv-1', 'tv-2', 'tv-3']) tokens[device] = await fx.signIn(home.email, device);
    for (let index = 0; index < RACERS; index++) {
      tokens[`racer-${index}`] = await fx.signIn(race.email, `racer-${index}`);
    }
  });
  after(() => fx.close());

  const start = (device: string, contentId = 1, userHash = home.userHash) =>
    fx.call('PUT', `/smarttv/${device}/users/${userHash}/playback/${contentId}?offset=0`, {
      token: tokens[device]?.accessToken,
    });
  const stop = (device: string, userHash = home.userHash) =>
    fx.call('DELETE', `/smarttv/${device}/users/${userHash}/playback`, {
      token: tokens[device]?.accessToken,
    });
  const setLimit = (accountNumber: string, limit: number | string, auth = { key: fx.operatorKey }) =>
    fx.call('PUT', `/accounts/${accountNumber}/stream-limit/${limit}`, auth);
  const refusals = async () =>
    sample(await injectedMetrics(fx.app, fx.core), 'sintonia_playback_refused_total') ?? 0;

  describe('happy', () => {
    it('two streams by default; a third device is 409 STREAM_LIMIT_REACHED in the family body, counted', async () => {
      const before = await refusals();
      assert.equal((await start('tv-1')).statusCode, 200);
      const second = await start('tv-2');
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().active, 2);
      assert.equal(second.json().limit, 2);
      const third = await start('tv-3');
      assert.equal(third.statusCode, 409, third.body);
      const body = third.json();
      assert.equal(body.code, 'CONFLICT');
      assert.equal(typeof body.message, 'string');
      assert.deepEqual(errorTypes(third), ['STREAM_LIMIT_REACHED']);
      assert.equal((await refusals()) - before, 1);
    });

    it('at the limit, a counted device goes on reporting and may change content', async () => {
      assert.equal((await start('tv-1', 1)).statusCode, 200);
      const other = await start('tv-2', 2);
      assert.equal(other.statusCode, 200, other.body);
      assert.equal(other.json().active, 2);
    });

    it('a stop frees its place; a stale stream frees it too', async () => {
      assert.equal((await stop('tv-2')).statusCode, 204);
      assert.equal((await start('tv-3')).statusCode, 200);
      assert.equal((await start('tv-2')).statusCode, 409);
      await fx.core.database.db
        .withTables<{ devices: { device_id: string; stream_reported_at: number | null } }>()
        .updateTable('devices')
        .set((eb) => ({ stream_reported_at: eb('stream_reported_at', '-', 91_000) }))
        .where('device_id', '=', 'tv-3')
        .execute();
      assert.equal((await start('tv-2')).statusCode, 200);
      // The stale device is a new stream now, and the account is at its limit again.
      assert.equal((await start('tv-3')).statusCode, 409);
    });

    it('an operator sets the account’s own limit: streams already counted go on, new ones follow it', async () => {
      const set = await setLimit(home.accountNumber, 1);
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(set.json(), { accountNumber: home.accountNumber, limit: 1 });
      const listed = await fx.call('GET', `/accounts/${home.accountNumber}/playback`, {
        key: fx.operatorKey,
      });
      assert.equal(listed.json().limit, 1);
      assert.equal((await start('tv-1')).statusCode, 200);
      assert.equal((await start('tv-2')).statusCode, 200);
      await stop('tv-1');
      await stop('tv-2');
      assert.equal((await start('tv-3')).statusCode, 200);
      assert.equal((await start('tv-1')).statusCode, 409);
      assert.equal((await setLimit(home.accountNumber, 0)).statusCode, 200);
      await stop('tv-3');
      assert.deepEqual(errorTypes(await start('tv-3')), ['STREAM_LIMIT_REACHED']);
      assert.equal((await setLimit(home.accountNumber, 3)).statusCode, 200);
    });

    it(`with a limit of 1, ${RACERS} devices starting at once: exactly one wins`, async () => {
      assert.equal((await setLimit(race.accountNumber, 1)).statusCode, 200);
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          Array.from({ length: RACERS }, (_, index) => start(`racer-${index}`, 100 + round, race.userHash)),
        );
        const statuses = answers.map((answer) => answer.statusCode).sort();
        assert.deepEqual(statuses, [200, ...Array(RACERS - 1).fill(409)], `round ${round}`);
        const listed = await fx.call('GET', `/accounts/${race.accountNumber}/playback`, {
          key: fx.operatorKey,
        });
        assert.equal(listed.json().streams.length, 1);
        const winner = answers.findIndex((answer) => answer.statusCode === 200);
        assert.equal((await stop(`racer-${winner}`, race.userHash)).statusCode, 204);
      }
    });

    it('a handoff (start replacing another device) fits in a full account and ends that stream', async () => {
      assert.equal((await setLimit(race.accountNumber, 1)).statusCode, 200);
      assert.equal((await start('racer-0', 55, race.userHash)).statusCode, 200);
      assert.equal((await start('racer-1', 55, race.userHash)).statusCode, 409);
      const moved = await fx.api.playback.start(race.accountNumber, 'racer-1', 55, 60, {
        replacing: 'racer-0',
      });
      assert.equal(moved.active, 1);
      assert.deepEqual(
        (await fx.api.playback.streamsOf(race.accountNumber)).map((stream) => [
          stream.deviceId,
          stream.offset,
        ]),
        [['racer-1', 60]],
      );
      await assert.rejects(
        fx.api.playback.start(race.accountNumber, 'racer-2', 55, 0),
        (error: Error & { type?: string }) => error.type === 'STREAM_LIMIT_REACHED',
      );
      await fx.api.playback.stop(race.accountNumber, 'racer-1');
    });

    it('answers the limit in XML and BSON', async () => {
      for (const type of ['application/xml', 'application/bson'] as const) {
        const response = await fx.app.inject({
          method: 'PUT',
          url: `${BASE}/accounts/${home.accountNumber}/stream-limit/4`,
          headers: { accept: type, 'x-api-key': fx.operatorKey },
        });
        assert.equal(response.statusCode, 200, response.body);
        const body = (await readBody(response)) as Record<string, unknown>;
        const limit = (type === 'application/xml' ? body.StreamLimit : body) as Record<string, unknown>;
        assert.equal(Number(limit.limit), 4);
        const refused = await fx.app.inject({
          method: 'PUT',
          url: `${BASE}/smarttv/tv-1/users/${home.userHash}/playback/1?offset=0`,
          headers: { accept: type, authorization: `Bearer ${tokens['tv-3']?.accessToken}` },
        });
        assert.equal(refused.statusCode, 403);
        assert.equal(errorOf(type, await readBody(refused)).type, 'DEVICE_MISMATCH');
      }
    });
  });

  describe('errors', () => {
    it('404 ACCOUNT_NOT_FOUND for an unknown account; 400 for a limit out of 0..20', async () => {
      const unknown = await setLimit('acc-nobody', 1);
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(errorTypes(unknown), ['ACCOUNT_NOT_FOUND']);
      for (const limit of [21, -1, 'two', 1.5]) {
        const response = await setLimit(home.accountNumber, limit);
        assert.equal(response.statusCode, 400, String(limit));
      }
    });

    it('is in the API document: operator only, its errors', async () => {
      const document = await fx.document();
      const operation = document.paths['/accounts/{accountNumber}/stream-limit/{limit}']?.put;
      assert.equal(operation?.operationId, 'Playback_SetStreamLimitAsync');
      assert.deepEqual(operation?.security, [{ ApiKey: [] }]);
      assert.ok(operation?.['x-error-types']?.['404']?.includes('ACCOUNT_NOT_FOUND'));
    });
  });

  describe('security', () => {
    it('401 without credentials; 403 for a device token, even its own account’s', async () => {
      assert.equal((await setLimit(home.accountNumber, 9, {} as { key: string })).statusCode, 401);
      const device = await fx.call('PUT', `/accounts/${home.accountNumber}/stream-limit/9`, {
        token: tokens['tv-1']?.accessToken,
      });
      assert.equal(device.statusCode, 403);
      const listed = await fx.call('GET', `/accounts/${home.accountNumber}/playback`, {
        key: fx.operatorKey,
      });
      assert.equal(listed.json().limit, 4);
    });
  });
});
