import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AccountsFixture,
  accountsFixture,
  BASE,
  errorTypes,
  type PlaybackCast,
  playbackCast,
} from './accounts-fixtures.ts';
import { errorOf, type FormatName, readBody } from './media-formats.ts';

interface StreamBody {
  deviceId: string;
  deviceClass: string;
  name: string;
  contentId: number;
  offset: number;
  since: string;
  reportedAt: string;
  limit: number;
  active: number;
}

/**
 * PUT …/{deviceClass}/{deviceId}/users/{userHash}/playback/{contentId}?offset=N (a device starts or reports
 * its stream) and DELETE …/playback (it stopped), in the media types; a bookmark save as a report; a stream
 * past PLAYBACK_STALE_AFTER is over. Their errors and who may call them.
 */
describe('playback streams', () => {
  let fx: AccountsFixture;
  let cast: PlaybackCast;

  before(async () => {
    // A limit of 5: this file is about streams themselves; playback-limits.test.ts is about the limit.
    fx = await accountsFixture({ PLAYBACK_STREAM_LIMIT: '5' });
    cast = await playbackCast(fx, { alice: 'acc-play', bob: 'acc-play-bob' }, { tv: 'Living room' });
  });
  after(() => fx.close());

  const start = (token: string, path: string, accept: FormatName = 'application/json') =>
    fx.app.inject({
      method: 'PUT',
      url: `${BASE}${path}`,
      headers: { accept, authorization: `Bearer ${token}` },
    });
  const tvPath = (contentId: number | string, offset: number | string = 0) =>
    `/smarttv/tv-1/users/${cast.alice.userHash}/playback/${contentId}?offset=${offset}`;
  const stop = (token: string, path = `/smarttv/tv-1/users/${cast.alice.userHash}/playback`) =>
    fx.call('DELETE', path, { token });
  const watching = async () => {
    const response = await fx.call('GET', `/accounts/${cast.alice.accountNumber}/playback`, {
      key: fx.operatorKey,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { limit: number; streams: StreamBody[] };
  };
  /** Moves the device's last report back `seconds` (as if it had gone quiet that long). */
  const age = (deviceId: string, seconds: number) =>
    fx.core.database.db
      .withTables<{ devices: { device_id: string; stream_reported_at: number | null } }>()
      .updateTable('devices')
      .set((eb) => ({ stream_reported_at: eb('stream_reported_at', '-', seconds * 1000) }))
      .where('device_id', '=', deviceId)
      .execute();

  describe('happy', () => {
    it('starts a stream and answers it with the account’s limit and live streams', async () => {
      const response = await start(cast.tv.accessToken, tvPath(7001, 30));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as StreamBody;
      assert.equal(body.deviceId, 'tv-1');
      assert.equal(body.deviceClass, 'smarttv');
      assert.equal(body.name, 'Living room');
      assert.equal(body.contentId, 7001);
      assert.equal(body.offset, 30);
      assert.equal(body.limit, 5);
      assert.equal(body.active, 1);
      assert.equal(body.since, body.reportedAt);
      assert.ok(Math.abs(Date.parse(body.since) - Date.now()) < 60_000);
    });

    it('a report of the same content keeps since; another content replaces the stream, counted once', async () => {
      const first = (await start(cast.tv.accessToken, tvPath(7002, 0))).json() as StreamBody;
      const again = (await start(cast.tv.accessToken, tvPath(7002, 95))).json() as StreamBody;
      assert.equal(again.offset, 95);
      assert.equal(again.since, first.since);
      assert.equal(again.active, 1);
      const listed = await watching();
      assert.deepEqual(
        listed.streams.map((stream) => [stream.deviceId, stream.contentId, stream.offset]),
        [['tv-1', 7002, 95]],
      );
    });

    it('a bookmark save by the playing device reports its stream: position and content move', async () => {
      await start(cast.tv.accessToken, tvPath(7003, 10));
      await age('tv-1', 30);
      const saved = await fx.call('POST', `/smarttv/tv-1/users/${cast.alice.userHash}/bookmarks/7004/321`, {
        token: cast.tv.accessToken,
      });
      assert.equal(saved.statusCode, 200, saved.body);
      const [stream] = (await watching()).streams;
      assert.equal(stream?.contentId, 7004);
      assert.equal(stream?.offset, 321);
      // Reported now, not 30 s ago: the save kept it alive.
      assert.ok(Date.now() - Date.parse(stream?.reportedAt ?? '') < 20_000, stream?.reportedAt);
    });

    it('a bookmark save by a device with no stream starts none', async () => {
      const saved = await fx.call('POST', `/android/phone-1/users/${cast.alice.userHash}/bookmarks/7005/5`, {
        token: cast.phone.accessToken,
      });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.deepEqual(
        (await watching()).streams.map((stream) => stream.deviceId),
        ['tv-1'],
      );
    });

    it('a stream with no report for PLAYBACK_STALE_AFTER is over: not shown, not revived by a save', async () => {
      await start(
        cast.phone.accessToken,
        `/android/phone-1/users/${cast.alice.userHash}/playback/7006?offset=1`,
      );
      assert.equal((await watching()).streams.length, 2);
      await age('phone-1', 91);
      assert.deepEqual(
        (await watching()).streams.map((stream) => stream.deviceId),
        ['tv-1'],
      );
      // Past the playing mark's 5 s resolution? The mark may be skipped; either way the stream stays over.
      await fx.call('POST', `/android/phone-1/users/${cast.alice.userHash}/bookmarks/7006/60`, {
        token: cast.phone.accessToken,
      });
      assert.deepEqual(
        (await watching()).streams.map((stream) => stream.deviceId),
        ['tv-1'],
      );
    });

    it('DELETE ends the device’s stream: 204, and 204 again', async () => {
      assert.equal((await stop(cast.tv.accessToken)).statusCode, 204);
      assert.deepEqual((await watching()).streams, []);
      const again = await stop(cast.tv.accessToken);
      assert.equal(again.statusCode, 204);
      assert.equal(again.body, '');
    });

    for (const type of ['application/bson', 'application/ubjson', 'application/xml'] as const) {
      it(`answers the stream in ${type}, and its errors too`, async () => {
        const response = await start(cast.tv.accessToken, tvPath(7100, 42), type);
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(String(response.headers['content-type']).startsWith(type));
        const body = (await readBody(response)) as Record<string, unknown>;
        const stream = (type === 'application/xml' ? body.Stream : body) as Record<string, unknown>;
        assert.equal(String(stream.deviceId), 'tv-1');
        assert.equal(Number(stream.contentId), 7100);
        assert.equal(Number(stream.offset), 42);
        if (type === 'application/xml') assert.match(response.body, /^<\?xml[^>]*>\s*<Stream/);
        const refused = await start(cast.tv.accessToken, tvPath(7100, -1), type);
        assert.equal(refused.statusCode, 400);
        assert.equal(errorOf(type, await readBody(refused)).code, 'BAD_REQUEST');
      });
    }
  });

  describe('errors', () => {
    it('400 for a malformed content id or offset', async () => {
      for (const path of [tvPath('abc'), tvPath(1, 'x'), tvPath(1, 2147483648)]) {
        const response = await start(cast.tv.accessToken, path);
        assert.equal(response.statusCode, 400, path);
        assert.equal(response.json().code, 'BAD_REQUEST');
      }
    });

    it('403 DEVICE_MISMATCH for another deviceId or class than the token’s', async () => {
      for (const path of [
        `/smarttv/tv-2/users/${cast.alice.userHash}/playback/1?offset=0`,
        `/android/tv-1/users/${cast.alice.userHash}/playback/1?offset=0`,
      ]) {
        const response = await start(cast.tv.accessToken, path);
        assert.equal(response.statusCode, 403, path);
        assert.deepEqual(errorTypes(response), ['DEVICE_MISMATCH']);
      }
      const stopped = await stop(cast.tv.accessToken, `/smarttv/tv-2/users/${cast.alice.userHash}/playback`);
      assert.equal(stopped.statusCode, 403);
      assert.deepEqual(errorTypes(stopped), ['DEVICE_MISMATCH']);
    });

    it('is in the API document with its errors', async () => {
      const document = await fx.document();
      const put = document.paths['/{deviceClass}/{deviceId}/users/{userHash}/playback/{contentId}']?.put;
      assert.equal(put?.operationId, 'Playback_StartStreamAsync');
      assert.ok(put?.['x-error-types']?.['409']?.includes('STREAM_LIMIT_REACHED'));
      assert.ok(put?.['x-error-types']?.['403']?.includes('DEVICE_MISMATCH'));
      const remove = document.paths['/{deviceClass}/{deviceId}/users/{userHash}/playback']?.delete;
      assert.equal(remove?.operationId, 'Playback_StopStreamAsync');
      assert.ok(remove?.responses['204']);
    });
  });

  describe('security', () => {
    it('401 without a token; 403 with an operator key (a device reports its own playback)', async () => {
      const none = await fx.call('PUT', tvPath(1));
      assert.equal(none.statusCode, 401);
      const operator = await fx.call('PUT', tvPath(1), { key: fx.operatorKey });
      assert.equal(operator.statusCode, 403);
      assert.equal(
        (await fx.call('DELETE', `/smarttv/tv-1/users/${cast.alice.userHash}/playback`)).statusCode,
        401,
      );
    });

    it('403 for another account’s device token, which starts and stops nothing', async () => {
      await start(cast.tv.accessToken, tvPath(7200, 0));
      const other = await start(
        cast.bobTv.accessToken,
        `/smarttv/tv-b/users/${cast.alice.userHash}/playback/1?offset=0`,
      );
      assert.equal(other.statusCode, 403);
      assert.deepEqual(errorTypes(other), ['ACCESS_DENIED']);
      const stopped = await stop(cast.bobTv.accessToken);
      assert.equal(stopped.statusCode, 403);
      assert.deepEqual(
        (await watching()).streams.map((stream) => stream.deviceId),
        ['tv-1'],
      );
    });

    it('401 with the token of a closed session', async () => {
      const closed = await fx.signIn(cast.alice.email, 'tv-closed');
      await fx.api.sessions.closeDeviceSessions(cast.alice.accountNumber, 'tv-closed', 'All');
      const response = await start(
        closed.accessToken,
        `/smarttv/tv-closed/users/${cast.alice.userHash}/playback/1?offset=0`,
      );
      assert.equal(response.statusCode, 401, response.body);
    });
  });
});
