import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { WRITES_APPLICATION_NAME } from '../../src/core/db/database.ts';
import { testDatabase } from '../helpers/harness.ts';
import {
  type AccountsFixture,
  accountsFixture,
  errorTypes,
  type PlaybackCast,
  playbackCast,
  type SignedIn,
} from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';

const long25 = 'x'.repeat(25);
const SAVE_PATH = '/{deviceClass}/{deviceId}/users/{userHash}/bookmarks/{contentId}/{offset}';

/**
 * Saving a position, POST /{deviceClass}/{deviceId}/users/{userHash}/bookmarks/{contentId}/{offset}
 * (Bookmarks_AddBookmarkAsync), read back through GET /{deviceClass}/users/{userHash}/bookmarks/{contentId}.
 * The read's own cases and the recent list are in bookmarks-read.test.ts; every operation's refusal of a
 * closed session, its access by credentials and its media types are also checked across the document
 * (session-refusal-every-operation, auth-access, media-*).
 */
describe('bookmark save', () => {
  let fx: AccountsFixture;
  let cast: PlaybackCast;
  // Accounts of the session cases: frTv open, revoked closed once it had saved 7 at 30 s.
  let frAlice: { userHash: string };
  let frBob: { userHash: string };
  let frTv: SignedIn;
  let revoked: SignedIn;

  before(async () => {
    fx = await accountsFixture();
    cast = await playbackCast(fx, { alice: 'acc-alice', bob: 'acc-bob' });

    frAlice = await fx.account('fr-alice');
    frBob = await fx.account('fr-bob');
    frTv = await fx.signIn('fr-alice@example.test', 'tv-1');
    revoked = await fx.signIn('fr-alice@example.test', 'tv-2');
    const saved = await fx.call('POST', `/smarttv/tv-2/users/${frAlice.userHash}/bookmarks/7/30`, {
      token: revoked.accessToken,
    });
    assert.equal(saved.statusCode, 200, saved.body);
    const closed = await fx.call('DELETE', '/accounts/fr-alice/devices/tv-2/sessions', {
      key: fx.operatorKey,
    });
    assert.equal(closed.statusCode, 204, closed.body);
  });
  after(() => fx.close());

  // Each device saves under the class it signed in with (phone-1 as android, the TVs as smarttv).
  const classOf = (device: string) => (device === 'phone-1' ? 'android' : 'smarttv');
  const save = (
    token: string,
    device: string,
    userHash: string,
    contentId: number | string,
    offset: number | string,
    query = '',
  ) =>
    fx.call(
      'POST',
      `/${classOf(device)}/${device}/users/${userHash}/bookmarks/${contentId}/${offset}${query}`,
      { token },
    );
  const read = (token: string, userHash: string, contentId: number | string, query = '') =>
    fx.call('GET', `/smarttv/users/${userHash}/bookmarks/${contentId}${query}`, { token });

  describe('happy', () => {
    it('saves a position, answers the stored bookmark and reads it back', async () => {
      const saved = await save(cast.tv.accessToken, 'tv-1', cast.alice.userHash, 1001, 120, '?version=v2');
      assert.equal(saved.statusCode, 200, saved.body);
      const body = saved.json();
      assert.equal(body.applied, true);
      assert.equal(body.offset, 120);
      assert.equal(body.contentId, 1001);
      assert.equal(body.userHash, cast.alice.userHash);
      assert.equal(body.deviceId, 'tv-1');
      assert.equal(body.deviceClass, 'smarttv');
      assert.equal(body.accountNumber, 'acc-alice');
      assert.equal(body.version, 'v2');
      assert.ok(!Number.isNaN(Date.parse(body.at)));

      const got = await read(cast.phone.accessToken, cast.alice.userHash, 1001);
      assert.equal(got.statusCode, 200, got.body);
      assert.equal(got.json().offset, 120);
      assert.equal(got.json().applied, undefined);
      // Narrowed by account and version: matches, then does not.
      assert.equal(
        (await read(cast.tv.accessToken, cast.alice.userHash, 1001, '?accountNumber=acc-alice&version=v2'))
          .statusCode,
        200,
      );
      const otherVersion = await read(cast.tv.accessToken, cast.alice.userHash, 1001, '?version=v3');
      assert.equal(otherVersion.statusCode, 404);
      assert.deepEqual(errorTypes(otherVersion), ['BOOKMARK_NOT_FOUND']);
      assert.equal(
        (await read(cast.tv.accessToken, cast.alice.userHash, 1001, '?accountNumber=acc-bob')).statusCode,
        404,
      );
    });

    it('a stale save from one device never overwrites newer progress from another', async () => {
      const newer = new Date(Date.now() - 10_000).toISOString();
      const older = new Date(Date.now() - 60_000).toISOString();
      const first = await save(
        cast.phone.accessToken,
        'phone-1',
        cast.alice.userHash,
        2002,
        1800,
        `?at=${encodeURIComponent(newer)}`,
      );
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().applied, true);

      // The TV was paused a minute ago at 300 s and re-sends its position now.
      const stale = await save(
        cast.tv.accessToken,
        'tv-1',
        cast.alice.userHash,
        2002,
        300,
        `?at=${encodeURIComponent(older)}`,
      );
      assert.equal(stale.statusCode, 200, stale.body);
      assert.equal(stale.json().applied, false);
      assert.equal(stale.json().offset, 1800);
      assert.equal(stale.json().deviceId, 'phone-1');
      assert.equal(stale.json().at, newer);

      const stored = await read(cast.tv.accessToken, cast.alice.userHash, 2002);
      assert.equal(stored.json().offset, 1800);
      assert.equal(stored.json().deviceId, 'phone-1');

      // A newer save from the TV does replace it; a save without `at` counts as now.
      const later = await save(cast.tv.accessToken, 'tv-1', cast.alice.userHash, 2002, 1900);
      assert.equal(later.json().applied, true);
      assert.equal((await read(cast.tv.accessToken, cast.alice.userHash, 2002)).json().offset, 1900);
    });

    it('marks the saving device as playing', async () => {
      await save(cast.phone.accessToken, 'phone-1', cast.alice.userHash, 3003, 10);
      const playing = await fx.call('GET', '/accounts/acc-alice/devices/playing', {
        token: cast.tv.accessToken,
      });
      assert.equal(playing.statusCode, 200, playing.body);
      assert.ok((playing.json() as string[]).includes('phone-1'));
    });

    it('operators save and read for any user; an unknown userHash is 404', async () => {
      const key = fx.operatorKey;
      const saved = await fx.call('POST', `/web/tv-b/users/${cast.bob.userHash}/bookmarks/7/70`, { key });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.equal(saved.json().accountNumber, 'acc-bob');
      assert.equal(
        (await fx.call('GET', `/web/users/${cast.bob.userHash}/bookmarks/7`, { key })).json().offset,
        70,
      );
      const unknown = await fx.call('POST', '/web/tv-b/users/nobody-hash/bookmarks/7/70', { key });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(errorTypes(unknown), ['USER_NOT_FOUND']);
    });

    it('answers in BSON and XML too', async () => {
      const saved = await fx.app.inject({
        method: 'POST',
        url: `/api/v1/smarttv/tv-1/users/${cast.alice.userHash}/bookmarks/5005/61`,
        headers: { authorization: `Bearer ${cast.tv.accessToken}`, accept: 'application/bson' },
      });
      assert.equal(saved.statusCode, 200);
      assert.match(String(saved.headers['content-type']), /^application\/bson/);
      const bson = (await decoded(saved)) as Record<string, unknown>;
      assert.equal(bson.offset, 61);
      assert.equal(Number(bson.contentId), 5005);
      assert.equal(bson.applied, true);
      assert.equal(bson.deviceId, 'tv-1');

      const read = await fx.app.inject({
        method: 'GET',
        url: `/api/v1/smarttv/users/${cast.alice.userHash}/bookmarks/5005`,
        headers: { authorization: `Bearer ${cast.tv.accessToken}`, accept: 'application/xml' },
      });
      assert.equal(read.statusCode, 200);
      const xml = (await decoded(read)) as { Bookmark: Record<string, string> };
      assert.equal(xml.Bookmark.offset, '61');
      assert.equal(xml.Bookmark.contentId, '5005');
      assert.equal(xml.Bookmark.userHash, cast.alice.userHash);

      const missing = await fx.app.inject({
        method: 'GET',
        url: `/api/v1/smarttv/users/${cast.alice.userHash}/bookmarks/5006`,
        headers: { authorization: `Bearer ${cast.tv.accessToken}`, accept: 'application/xml' },
      });
      assert.equal(missing.statusCode, 404);
      const error = (await decoded(missing)) as {
        Error: { code: string; errors: { ErrorItem: { type: string } } };
      };
      assert.equal(error.Error.code, 'NOT_FOUND');
      assert.equal(error.Error.errors.ErrorItem.type, 'BOOKMARK_NOT_FOUND');
    });

    it('an open session reads, saves and lists in one go', async () => {
      const saved = await save(frTv.accessToken, 'tv-1', frAlice.userHash, 7, 45);
      assert.equal(saved.statusCode, 200, saved.body);
      const got = await read(frTv.accessToken, frAlice.userHash, 7);
      assert.equal(got.json().offset, 45);
      const missing = await read(frTv.accessToken, frAlice.userHash, 8);
      assert.deepEqual([missing.statusCode, errorTypes(missing)], [404, ['BOOKMARK_NOT_FOUND']]);
      const devices = await fx.call('GET', '/accounts/fr-alice/devices', { token: frTv.accessToken });
      assert.deepEqual(
        devices.json().map((device: { mediaPlayerId: string }) => device.mediaPlayerId),
        ['tv-1', 'tv-2'],
      );
    });
  });

  // Before 'errors': a closed session's refusals read what the open session saved above, untouched.
  describe('security', () => {
    it('a device token saves under its own deviceClass only (403); an operator under any', async () => {
      const path = `/web/tv-1/users/${cast.alice.userHash}/bookmarks/4004/40`;
      const refused = await fx.call('POST', path, { token: cast.tv.accessToken });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, 'FORBIDDEN');
      assert.deepEqual(errorTypes(refused), ['DEVICE_MISMATCH']);
      assert.equal(
        (await read(cast.tv.accessToken, cast.alice.userHash, 4004)).statusCode,
        404,
        'nothing stored',
      );

      const own = await save(cast.tv.accessToken, 'tv-1', cast.alice.userHash, 4004, 41);
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(own.json().deviceClass, 'smarttv');

      const operator = await fx.call('POST', path, { key: fx.operatorKey });
      assert.equal(operator.statusCode, 200, operator.body);
      assert.equal(operator.json().deviceClass, 'web');
      assert.equal(operator.json().deviceId, 'tv-1');
    });

    it('401 without credentials, 403 for another user or another device', async () => {
      const anonymous = await fx.call('GET', `/smarttv/users/${cast.alice.userHash}/bookmarks/1001`);
      assert.equal(anonymous.statusCode, 401);
      assert.deepEqual(errorTypes(anonymous), ['CREDENTIALS_MISSING']);
      assert.equal(
        (await fx.call('POST', `/smarttv/tv-1/users/${cast.alice.userHash}/bookmarks/1/1`)).statusCode,
        401,
      );

      const otherUser = await read(cast.bobTv.accessToken, cast.alice.userHash, 1001);
      assert.equal(otherUser.statusCode, 403);
      assert.deepEqual(errorTypes(otherUser), ['ACCESS_DENIED']);
      assert.equal(
        (await save(cast.bobTv.accessToken, 'tv-b', cast.alice.userHash, 1001, 5)).statusCode,
        403,
      );

      const otherDevice = await save(cast.tv.accessToken, 'phone-1', cast.alice.userHash, 1001, 5);
      assert.equal(otherDevice.statusCode, 403);
      assert.deepEqual(errorTypes(otherDevice), ['DEVICE_MISMATCH']);
    });

    it("a closed session's token is 401 TOKEN_INVALID on the bookmark read and save and the device list, and its save writes nothing", async () => {
      const token = revoked.accessToken;
      const answers = [
        await read(token, frAlice.userHash, 7),
        await read(token, frAlice.userHash, 8),
        await save(token, 'tv-2', frAlice.userHash, 7, 999),
        await save(token, 'tv-2', frAlice.userHash, 9, 999),
        await fx.call('GET', '/accounts/fr-alice/devices', { token }),
        // The session is checked before anything else about the request: 401, not 403 or 400.
        await save(token, 'tv-1', frAlice.userHash, 7, 999),
        await read(token, frBob.userHash, 7),
        await fx.call('GET', '/accounts/fr-bob/devices', { token }),
        await save(token, 'tv-2', frAlice.userHash, 7, -5),
      ];
      for (const [index, answer] of answers.entries()) {
        assert.equal(answer.statusCode, 401, `${index}: ${answer.body}`);
        assert.deepEqual(errorTypes(answer), ['TOKEN_INVALID'], `${index}: ${answer.body}`);
      }
      const got = await read(frTv.accessToken, frAlice.userHash, 7);
      assert.equal(got.json().offset, 45);
      const never = await read(frTv.accessToken, frAlice.userHash, 9);
      assert.equal(never.statusCode, 404);
    });
  });

  describe('errors', () => {
    it('400 for every input the contract limits', async () => {
      const token = cast.tv.accessToken;
      const hash = cast.alice.userHash;
      const cases: Array<
        [
          string,
          Promise<{ statusCode: number; json(): { errors: Array<{ type: string; message: string }> } }>,
        ]
      > = [
        ['deviceClass 25 (read)', fx.call('GET', `/${long25}/users/${hash}/bookmarks/1`, { token })],
        ['deviceClass 25 (save)', fx.call('POST', `/${long25}/tv-1/users/${hash}/bookmarks/1/1`, { token })],
        ['userHash 49', fx.call('GET', `/smarttv/users/${'h'.repeat(49)}/bookmarks/1`, { token })],
        ['deviceId 49', fx.call('POST', `/smarttv/${'d'.repeat(49)}/users/${hash}/bookmarks/1/1`, { token })],
        ['contentId not a number', read(token, hash, 'abc')],
        ['contentId beyond 2^53-1', read(token, hash, '9007199254740993')],
        ['accountNumber 49', read(token, hash, 1, `?accountNumber=${'a'.repeat(49)}`)],
        ['version 25', read(token, hash, 1, `?version=${long25}`)],
        ['offset negative', save(token, 'tv-1', hash, 1, -1)],
        ['offset fractional', save(token, 'tv-1', hash, 1, '1.5')],
        ['offset not a number', save(token, 'tv-1', hash, 1, 'ten')],
        ['at not a date', save(token, 'tv-1', hash, 1, 1, '?at=yesterday')],
        ['version 25 (save)', save(token, 'tv-1', hash, 1, 1, `?version=${long25}`)],
      ];
      for (const [name, pending] of cases) {
        const response = await pending;
        assert.equal(response.statusCode, 400, name);
        assert.ok(
          response.json().errors.every((error) => error.type === 'VALIDATION_ERROR'),
          name,
        );
      }
      const future = await save(
        token,
        'tv-1',
        hash,
        1,
        1,
        `?at=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`,
      );
      assert.equal(future.statusCode, 400);
      assert.deepEqual(errorTypes(future), ['BOOKMARK_TIME_IN_FUTURE']);
    });

    it("states the bookmark save's limits where they are enforced", async () => {
      const save = (await fx.document()).paths[SAVE_PATH]?.post;
      const parameter = (name: string) => save?.parameters?.find((candidate) => candidate.name === name);
      assert.match(parameter('at')?.description ?? '', /at most 300 s ahead of the server's clock/);
      assert.match(parameter('at')?.description ?? '', /BOOKMARK_TIME_IN_FUTURE/);
      assert.match(
        parameter('deviceClass')?.description ?? '',
        /own class only \(else 403 DEVICE_MISMATCH\)/,
      );
      assert.match(
        parameter('deviceId')?.description ?? '',
        /own deviceId only \(else 403 DEVICE_MISMATCH\)/,
      );
    });

    it('a save whose connection is killed under it is 503 STORE_UNAVAILABLE, writes nothing, and the next one lands', async (t) => {
      if (testDatabase !== 'postgres') return t.skip('PostgreSQL: a connection of the writes to kill');
      // Killed under a statement, the connection must take no later one: the save after it lands.
      const admin = new pg.Client({ connectionString: fx.core.env.DATABASE_URL });
      await admin.connect();
      try {
        // Hold the bookmark's row so the save's statement waits on its connection, then kill that connection.
        await admin.query('begin');
        await admin.query('select 1 from bookmarks where user_hash = $1 and content_id = 7 for update', [
          frAlice.userHash,
        ]);
        const pending = save(frTv.accessToken, 'tv-1', frAlice.userHash, 7, 500);
        let killed = 0;
        for (const deadline = Date.now() + 5000; killed === 0; ) {
          const { rows } = await admin.query<{ killed: boolean }>(
            `select pg_terminate_backend(pid) as killed from pg_stat_activity
              where datname = current_database() and application_name = $1 and wait_event_type = 'Lock'`,
            [WRITES_APPLICATION_NAME],
          );
          killed = rows.filter((row) => row.killed).length;
          if (killed === 0 && Date.now() > deadline) assert.fail('the save never waited on the lock');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await admin.query('rollback');
        const refused = await pending;
        assert.deepEqual(
          [refused.statusCode, errorTypes(refused)],
          [503, ['STORE_UNAVAILABLE']],
          refused.body,
        );
        assert.equal(refused.headers['retry-after'], '1');
        assert.equal(refused.json().code, 'SERVICE_UNAVAILABLE');
        const got = await read(frTv.accessToken, frAlice.userHash, 7);
        assert.equal(got.json().offset, 45, 'the killed save wrote nothing');
        const saved = await save(frTv.accessToken, 'tv-1', frAlice.userHash, 7, 500);
        assert.deepEqual([saved.statusCode, saved.json().offset], [200, 500], saved.body);
      } finally {
        await admin.end();
      }
    });
  });
});
