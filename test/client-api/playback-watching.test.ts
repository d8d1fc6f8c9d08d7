import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { injectedMetrics, sample } from '../helpers/metrics-text.ts';
import {
  type AccountsFixture,
  accountsFixture,
  BASE,
  errorTypes,
  type PlaybackCast,
  playbackCast,
} from './accounts-fixtures.ts';
import { errorOf, readBody } from './media-formats.ts';

interface Listed {
  limit: number;
  streams: Array<{
    deviceId: string;
    deviceClass: string;
    name: string;
    contentId: number;
    offset: number;
    since: string;
    reportedAt: string;
  }>;
}

/**
 * GET /accounts/{accountNumber}/playback (who is watching) in the media types, its errors and access
 * (delegated tokens: test/e2e/playback-delegated.test.ts), and the live-streams gauge of /metrics.
 */
describe('who is watching', () => {
  let fx: AccountsFixture;
  let cast: PlaybackCast;

  before(async () => {
    fx = await accountsFixture();
    cast = await playbackCast(
      fx,
      { alice: 'acc-watch', bob: 'acc-watch-bob' },
      { tv: 'Salón', phone: 'Ana’s phone' },
    );
    await fx.account('acc-watch-empty');
    for (const [token, path] of [
      [cast.tv.accessToken, `/smarttv/tv-1/users/${cast.alice.userHash}/playback/9001?offset=120`],
      [cast.phone.accessToken, `/android/phone-1/users/${cast.alice.userHash}/playback/9002?offset=5`],
      [cast.bobTv.accessToken, `/smarttv/tv-b/users/${cast.bob.userHash}/playback/9003?offset=0`],
    ] as const) {
      const started = await fx.call('PUT', path, { token });
      assert.equal(started.statusCode, 200, started.body);
    }
  });
  after(() => fx.close());

  const watching = (accountNumber: string, auth: { token?: string; key?: string }) =>
    fx.call('GET', `/accounts/${accountNumber}/playback`, auth);

  describe('happy', () => {
    it('answers the account’s live streams, the earliest started first, and its limit', async () => {
      const response = await watching(cast.alice.accountNumber, { token: cast.phone.accessToken });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Listed;
      assert.equal(body.limit, 2);
      assert.deepEqual(
        body.streams.map((stream) => [
          stream.deviceId,
          stream.deviceClass,
          stream.name,
          stream.contentId,
          stream.offset,
        ]),
        [
          ['tv-1', 'smarttv', 'Salón', 9001, 120],
          ['phone-1', 'android', 'Ana’s phone', 9002, 5],
        ],
      );
      for (const stream of body.streams) {
        assert.ok(Date.parse(stream.since) <= Date.parse(stream.reportedAt));
      }
    });

    it('an account that plays nothing: no streams; an operator reads any account', async () => {
      const empty = await watching('acc-watch-empty', { key: fx.operatorKey });
      assert.equal(empty.statusCode, 200, empty.body);
      assert.deepEqual(empty.json(), { limit: 2, streams: [] });
      const bobs = (await watching(cast.bob.accountNumber, { key: fx.operatorKey })).json() as Listed;
      assert.deepEqual(
        bobs.streams.map((stream) => stream.deviceId),
        ['tv-b'],
      );
    });

    for (const type of ['application/bson', 'application/ubjson', 'application/xml'] as const) {
      it(`answers in ${type}, and its errors too`, async () => {
        const response = await fx.app.inject({
          url: `${BASE}/accounts/${cast.alice.accountNumber}/playback`,
          headers: { accept: type, authorization: `Bearer ${cast.tv.accessToken}` },
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(String(response.headers['content-type']).startsWith(type));
        const text = JSON.stringify(await readBody(response));
        assert.match(text, /9001/);
        assert.match(text, /Ana’s phone/);
        if (type === 'application/xml') assert.match(response.body, /^<\?xml[^>]*>\s*<Playback/);
        const refused = await fx.app.inject({
          url: `${BASE}/accounts/${cast.bob.accountNumber}/playback`,
          headers: { accept: type, authorization: `Bearer ${cast.tv.accessToken}` },
        });
        assert.equal(refused.statusCode, 403);
        assert.equal(errorOf(type, await readBody(refused)).type, 'ACCESS_DENIED');
      });
    }

    it('/metrics: the live streams of every account now', async () => {
      const metrics = await injectedMetrics(fx.app, fx.core);
      assert.equal(sample(metrics, 'sintonia_playback_streams'), 3);
      assert.equal(sample(metrics, 'sintonia_playback_refused_total'), 0);
    });
  });

  describe('errors', () => {
    it('404 ACCOUNT_NOT_FOUND for an unknown account', async () => {
      const response = await watching('acc-nobody', { key: fx.operatorKey });
      assert.equal(response.statusCode, 404);
      assert.deepEqual(errorTypes(response), ['ACCOUNT_NOT_FOUND']);
    });

    it('is in the API document with its scope playback:read', async () => {
      const operation = (await fx.document()).paths['/accounts/{accountNumber}/playback']?.get;
      assert.equal(operation?.operationId, 'Playback_GetPlaybackAsync');
      assert.equal(operation?.['x-delegated-scope'], 'playback:read');
      assert.ok(operation?.['x-error-types']?.['404']?.includes('ACCOUNT_NOT_FOUND'));
    });
  });

  describe('security', () => {
    it('401 without credentials; 403 for another account’s device', async () => {
      assert.equal((await watching(cast.alice.accountNumber, {})).statusCode, 401);
      const other = await watching(cast.alice.accountNumber, { token: cast.bobTv.accessToken });
      assert.equal(other.statusCode, 403);
      assert.deepEqual(errorTypes(other), ['ACCESS_DENIED']);
    });

    it('401 with the token of a closed session', async () => {
      const closed = await fx.signIn(cast.alice.email, 'tv-closed');
      await fx.api.sessions.closeDeviceSessions(cast.alice.accountNumber, 'tv-closed', 'All');
      assert.equal((await watching(cast.alice.accountNumber, { token: closed.accessToken })).statusCode, 401);
    });
  });
});
