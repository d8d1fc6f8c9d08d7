import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';

describe('ratings', () => {
  let fx: AccountsFixture;
  let alice: SignedIn;
  let bob: SignedIn;

  before(async () => {
    fx = await accountsFixture();
    const a = await fx.account('rate-a');
    const b = await fx.account('rate-b');
    alice = await fx.signIn(a.email, 'tv-a');
    bob = await fx.signIn(b.email, 'tv-b');
  });
  after(() => fx.close());

  const rate = (
    method: 'PUT' | 'POST',
    auth: { token?: string; key?: string },
    rating: number | string,
    query = '',
    contentId: number | string = 42,
  ) => fx.call(method, `/smarttv/contents/vod/${contentId}/ratings/${rating}${query}`, auth);

  describe('happy', () => {
    it("stores one rating per user and answers the user's rating with the content's average and count", async () => {
      const first = await rate('PUT', { token: alice.accessToken }, 5);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(first.json(), {
        module: 'vod',
        contentId: 42,
        userId: alice.platformUserId,
        rating: 5,
        average: 5,
        count: 1,
      });
      const second = await rate('POST', { token: bob.accessToken }, 2);
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().average, 3.5);
      assert.equal(second.json().count, 2);
      // Rating again replaces the user's rating, it does not add one.
      const again = await rate(
        'POST',
        { token: alice.accessToken },
        3,
        `?userId=${alice.platformUserId}&accountNumber=rate-a`,
      );
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().rating, 3);
      assert.equal(again.json().average, 2.5);
      assert.equal(again.json().count, 2);
      // Another module is another content item.
      const elsewhere = await fx.call('PUT', '/smarttv/contents/live/42/ratings/1', {
        token: alice.accessToken,
      });
      assert.equal(elsewhere.json().count, 1);
    });

    it('operators rate for a named user; without userId 400, an unknown one 404', async () => {
      const key = fx.operatorKey;
      const ok = await rate('PUT', { key }, 4, `?userId=${bob.platformUserId}`, 77);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().userId, bob.platformUserId);
      const missing = await rate('PUT', { key }, 4, '', 77);
      assert.equal(missing.statusCode, 400);
      assert.deepEqual(errorTypes(missing), ['RATING_USER_REQUIRED']);
      const unknown = await rate('PUT', { key }, 4, '?userId=nobody', 77);
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(errorTypes(unknown), ['USER_NOT_FOUND']);
      const wrongAccount = await rate(
        'PUT',
        { key },
        4,
        `?userId=${bob.platformUserId}&accountNumber=rate-a`,
        77,
      );
      assert.equal(wrongAccount.statusCode, 404);
    });

    it('answers in UBJSON too', async () => {
      const response = await fx.app.inject({
        method: 'PUT',
        url: '/api/v1/smarttv/contents/vod/555/ratings/4',
        headers: { authorization: `Bearer ${alice.accessToken}`, accept: 'application/ubjson' },
      });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/ubjson/);
      const body = (await decoded(response)) as Record<string, unknown>;
      assert.equal(body.rating, 4);
      assert.equal(body.count, 1);
      assert.equal(body.average, 4);
      assert.equal(body.userId, alice.platformUserId);
      assert.equal(Number(body.contentId), 555);
    });
  });

  describe('errors', () => {
    it('400 outside the 1-5 scale and for malformed input', async () => {
      const token = alice.accessToken;
      for (const [name, pending] of [
        ['0', rate('PUT', { token }, 0)],
        ['6', rate('POST', { token }, 6)],
        ['-1', rate('PUT', { token }, -1)],
        ['2.5', rate('PUT', { token }, '2.5')],
        ['abc', rate('PUT', { token }, 'abc')],
        ['contentId beyond 2^53-1', rate('PUT', { token }, 3, '', '9007199254740993')],
        ['deviceClass 25', fx.call('PUT', `/${'c'.repeat(25)}/contents/vod/1/ratings/3`, { token })],
        ['userId 65', rate('PUT', { token }, 3, `?userId=${'u'.repeat(65)}`)],
      ] as const) {
        const response = await pending;
        assert.equal(response.statusCode, 400, name);
        assert.deepEqual(errorTypes(response), ['VALIDATION_ERROR'], name);
      }
    });
  });

  describe('security', () => {
    it('401 without credentials; 403 for another user or account', async () => {
      const anonymous = await rate('PUT', {}, 3);
      assert.equal(anonymous.statusCode, 401);
      const otherUser = await rate('PUT', { token: alice.accessToken }, 3, `?userId=${bob.platformUserId}`);
      assert.equal(otherUser.statusCode, 403);
      assert.deepEqual(errorTypes(otherUser), ['USER_MISMATCH']);
      const otherAccount = await rate('POST', { token: alice.accessToken }, 3, '?accountNumber=rate-b');
      assert.equal(otherAccount.statusCode, 403);
      assert.deepEqual(errorTypes(otherAccount), ['ACCOUNT_MISMATCH']);
    });
  });
});
