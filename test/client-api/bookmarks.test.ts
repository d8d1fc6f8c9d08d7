import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';

const long25 = 'x'.repeat(25);

describe('bookmarks', () => {
  let fx: AccountsFixture;
  let alice: { accountNumber: string; email: string; userHash: string };
  let bob: { accountNumber: string; email: string; userHash: string };
  let tv: SignedIn;
  let phone: SignedIn;
  let bobTv: SignedIn;

  before(async () => {
    fx = await accountsFixture();
    alice = await fx.account('acc-alice');
    bob = await fx.account('acc-bob');
    tv = await fx.signIn(alice.email, 'tv-1');
    phone = await fx.signIn(alice.email, 'phone-1', { deviceClass: 'android' });
    bobTv = await fx.signIn(bob.email, 'tv-b');
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

  it('saves a position, answers the stored bookmark and reads it back', async () => {
    const saved = await save(tv.accessToken, 'tv-1', alice.userHash, 1001, 120, '?version=v2');
    assert.equal(saved.statusCode, 200, saved.body);
    const body = saved.json();
    assert.equal(body.applied, true);
    assert.equal(body.offset, 120);
    assert.equal(body.contentId, 1001);
    assert.equal(body.userHash, alice.userHash);
    assert.equal(body.deviceId, 'tv-1');
    assert.equal(body.deviceClass, 'smarttv');
    assert.equal(body.accountNumber, 'acc-alice');
    assert.equal(body.version, 'v2');
    assert.ok(!Number.isNaN(Date.parse(body.at)));

    const got = await read(phone.accessToken, alice.userHash, 1001);
    assert.equal(got.statusCode, 200, got.body);
    assert.equal(got.json().offset, 120);
    assert.equal(got.json().applied, undefined);
    // Narrowed by account and version: matches, then does not.
    assert.equal(
      (await read(tv.accessToken, alice.userHash, 1001, '?accountNumber=acc-alice&version=v2')).statusCode,
      200,
    );
    const otherVersion = await read(tv.accessToken, alice.userHash, 1001, '?version=v3');
    assert.equal(otherVersion.statusCode, 404);
    assert.deepEqual(errorTypes(otherVersion), ['BOOKMARK_NOT_FOUND']);
    assert.equal(
      (await read(tv.accessToken, alice.userHash, 1001, '?accountNumber=acc-bob')).statusCode,
      404,
    );
  });

  it('404 when nothing is stored', async () => {
    const response = await read(tv.accessToken, alice.userHash, 999999);
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().code, 'NOT_FOUND');
    assert.deepEqual(errorTypes(response), ['BOOKMARK_NOT_FOUND']);
  });

  it('a stale save from one device never overwrites newer progress from another', async () => {
    const newer = new Date(Date.now() - 10_000).toISOString();
    const older = new Date(Date.now() - 60_000).toISOString();
    const first = await save(
      phone.accessToken,
      'phone-1',
      alice.userHash,
      2002,
      1800,
      `?at=${encodeURIComponent(newer)}`,
    );
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().applied, true);

    // The TV was paused a minute ago at 300 s and re-sends its position now.
    const stale = await save(
      tv.accessToken,
      'tv-1',
      alice.userHash,
      2002,
      300,
      `?at=${encodeURIComponent(older)}`,
    );
    assert.equal(stale.statusCode, 200, stale.body);
    assert.equal(stale.json().applied, false);
    assert.equal(stale.json().offset, 1800);
    assert.equal(stale.json().deviceId, 'phone-1');
    assert.equal(stale.json().at, newer);

    const stored = await read(tv.accessToken, alice.userHash, 2002);
    assert.equal(stored.json().offset, 1800);
    assert.equal(stored.json().deviceId, 'phone-1');

    // A newer save from the TV does replace it; a save without `at` counts as now.
    const later = await save(tv.accessToken, 'tv-1', alice.userHash, 2002, 1900);
    assert.equal(later.json().applied, true);
    assert.equal((await read(tv.accessToken, alice.userHash, 2002)).json().offset, 1900);
  });

  it('marks the saving device as playing', async () => {
    await save(phone.accessToken, 'phone-1', alice.userHash, 3003, 10);
    const playing = await fx.call('GET', '/accounts/acc-alice/devices/playing', { token: tv.accessToken });
    assert.equal(playing.statusCode, 200, playing.body);
    assert.ok((playing.json() as string[]).includes('phone-1'));
  });

  it('operators save and read for any user; an unknown userHash is 404', async () => {
    const key = fx.operatorKey;
    const saved = await fx.call('POST', `/web/tv-b/users/${bob.userHash}/bookmarks/7/70`, { key });
    assert.equal(saved.statusCode, 200, saved.body);
    assert.equal(saved.json().accountNumber, 'acc-bob');
    assert.equal((await fx.call('GET', `/web/users/${bob.userHash}/bookmarks/7`, { key })).json().offset, 70);
    const unknown = await fx.call('POST', '/web/tv-b/users/nobody-hash/bookmarks/7/70', { key });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(errorTypes(unknown), ['USER_NOT_FOUND']);
  });

  it('a device token saves under its own deviceClass only (403); an operator under any', async () => {
    const path = `/web/tv-1/users/${alice.userHash}/bookmarks/4004/40`;
    const refused = await fx.call('POST', path, { token: tv.accessToken });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().code, 'FORBIDDEN');
    assert.deepEqual(errorTypes(refused), ['DEVICE_MISMATCH']);
    assert.equal((await read(tv.accessToken, alice.userHash, 4004)).statusCode, 404, 'nothing stored');

    const own = await save(tv.accessToken, 'tv-1', alice.userHash, 4004, 41);
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().deviceClass, 'smarttv');

    const operator = await fx.call('POST', path, { key: fx.operatorKey });
    assert.equal(operator.statusCode, 200, operator.body);
    assert.equal(operator.json().deviceClass, 'web');
    assert.equal(operator.json().deviceId, 'tv-1');
  });

  it('401 without credentials, 403 for another user or another device', async () => {
    const anonymous = await fx.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/1001`);
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(errorTypes(anonymous), ['CREDENTIALS_MISSING']);
    assert.equal(
      (await fx.call('POST', `/smarttv/tv-1/users/${alice.userHash}/bookmarks/1/1`)).statusCode,
      401,
    );

    const otherUser = await read(bobTv.accessToken, alice.userHash, 1001);
    assert.equal(otherUser.statusCode, 403);
    assert.deepEqual(errorTypes(otherUser), ['ACCESS_DENIED']);
    assert.equal((await save(bobTv.accessToken, 'tv-b', alice.userHash, 1001, 5)).statusCode, 403);

    const otherDevice = await save(tv.accessToken, 'phone-1', alice.userHash, 1001, 5);
    assert.equal(otherDevice.statusCode, 403);
    assert.deepEqual(errorTypes(otherDevice), ['DEVICE_MISMATCH']);
  });

  it('400 for every input the contract limits', async () => {
    const token = tv.accessToken;
    const hash = alice.userHash;
    const cases: Array<
      [string, Promise<{ statusCode: number; json(): { errors: Array<{ type: string; message: string }> } }>]
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

  it('answers in BSON and XML too', async () => {
    const saved = await fx.app.inject({
      method: 'POST',
      url: `/api/v1/smarttv/tv-1/users/${alice.userHash}/bookmarks/5005/61`,
      headers: { authorization: `Bearer ${tv.accessToken}`, accept: 'application/bson' },
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
      url: `/api/v1/smarttv/users/${alice.userHash}/bookmarks/5005`,
      headers: { authorization: `Bearer ${tv.accessToken}`, accept: 'application/xml' },
    });
    assert.equal(read.statusCode, 200);
    const xml = (await decoded(read)) as { Bookmark: Record<string, string> };
    assert.equal(xml.Bookmark.offset, '61');
    assert.equal(xml.Bookmark.contentId, '5005');
    assert.equal(xml.Bookmark.userHash, alice.userHash);

    const missing = await fx.app.inject({
      method: 'GET',
      url: `/api/v1/smarttv/users/${alice.userHash}/bookmarks/5006`,
      headers: { authorization: `Bearer ${tv.accessToken}`, accept: 'application/xml' },
    });
    assert.equal(missing.statusCode, 404);
    const error = (await decoded(missing)) as {
      Error: { code: string; errors: { ErrorItem: { type: string } } };
    };
    assert.equal(error.Error.code, 'NOT_FOUND');
    assert.equal(error.Error.errors.ErrorItem.type, 'BOOKMARK_NOT_FOUND');
  });
});
