import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSessionRepository } from '../../src/client-api/sessions/repository.ts';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';
import { errorOf, formatNames, readBody } from './media-formats.ts';

interface Listed {
  contentId: number;
  offset: number;
  deviceId: string;
  at: string;
}

/**
 * Reading bookmarks: one, GET /{deviceClass}/users/{userHash}/bookmarks/{contentId} (Bookmarks_GetBookmarkAsync,
 * whose save and read-back are in bookmarks-save.test.ts), and the account user's recent ones (continue
 * watching), GET /accounts/{accountNumber}/bookmarks, newest first, in every media type, and their errors.
 */
describe('bookmark reads: one, and the recent ones of an account', () => {
  let fx: AccountsFixture;
  let alice: { accountNumber: string; email: string; userHash: string };
  let tv: SignedIn;
  // The reader's TV has saved content 7 (the session-use case).
  let reader: { userHash: string };
  let readerTv: SignedIn;

  before(async () => {
    fx = await accountsFixture();
    alice = await fx.account('acc-recent');
    await fx.account('acc-empty');
    tv = await fx.signIn(alice.email, 'tv-1');
    // Three positions, each at its own client time: 1003 the newest, 1001 the oldest.
    const base = Date.now() - 60_000;
    for (const [contentId, offset, ago] of [
      [1001, 60, 30_000],
      [1002, 120, 20_000],
      [1003, 180, 10_000],
    ] as const) {
      const at = new Date(base + 60_000 - ago).toISOString();
      const saved = await fx.call(
        'POST',
        `/smarttv/tv-1/users/${alice.userHash}/bookmarks/${contentId}/${offset}?at=${encodeURIComponent(at)}`,
        { token: tv.accessToken },
      );
      assert.equal(saved.statusCode, 200, saved.body);
    }
    reader = await fx.account('acc-reader');
    readerTv = await fx.signIn('acc-reader@example.test', 'tv-1');
    const saved = await fx.call('POST', `/smarttv/tv-1/users/${reader.userHash}/bookmarks/7/45`, {
      token: readerTv.accessToken,
    });
    assert.equal(saved.statusCode, 200, saved.body);
  });
  after(() => fx.close());

  const recent = (query = '', auth: { token?: string; key?: string } = { token: tv.accessToken }) =>
    fx.call('GET', `/accounts/${alice.accountNumber}/bookmarks${query}`, auth);
  const read = (token: string, userHash: string, contentId: number | string) =>
    fx.call('GET', `/smarttv/users/${userHash}/bookmarks/${contentId}`, { token });

  describe('happy', () => {
    it('answers the bookmarks newest first, as many as asked (default 10)', async () => {
      const all = await recent();
      assert.equal(all.statusCode, 200, all.body);
      const listed = all.json() as Listed[];
      assert.deepEqual(
        listed.map((bookmark) => [bookmark.contentId, bookmark.offset]),
        [
          [1003, 180],
          [1002, 120],
          [1001, 60],
        ],
      );
      assert.equal(listed[0]?.deviceId, 'tv-1');
      const two = (await recent('?limit=2')).json() as Listed[];
      assert.deepEqual(
        two.map((bookmark) => bookmark.contentId),
        [1003, 1002],
      );
    });

    it('with contentId answers that item’s bookmark only, or none', async () => {
      const one = (await recent('?contentId=1002')).json() as Listed[];
      assert.deepEqual(
        one.map((bookmark) => [bookmark.contentId, bookmark.offset]),
        [[1002, 120]],
      );
      assert.deepEqual((await recent('?contentId=4242')).json(), []);
    });

    it('an account with no bookmarks answers an empty list; an operator reads any account', async () => {
      const empty = await fx.call('GET', '/accounts/acc-empty/bookmarks', { key: fx.operatorKey });
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(empty.json(), []);
      assert.equal((await recent('', { key: fx.operatorKey })).json().length, 3);
    });

    for (const type of formatNames) {
      it(`answers in ${type} (ArrayOfBookmark in XML), and its errors too`, async () => {
        const response = await fx.call('GET', `/accounts/${alice.accountNumber}/bookmarks?limit=2`, {
          token: tv.accessToken,
          accept: type,
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(String(response.headers['content-type']).startsWith(type));
        const body = await readBody(response);
        const text = JSON.stringify(body);
        assert.match(text, /1003/);
        assert.match(text, /1002/);
        assert.doesNotMatch(text, /1001/);
        if (type === 'application/xml') assert.match(response.body, /^<\?xml[^>]*>\s*<ArrayOfBookmark/);
        const refused = await fx.call('GET', `/accounts/${alice.accountNumber}/bookmarks?limit=0`, {
          token: tv.accessToken,
          accept: type,
        });
        assert.equal(refused.statusCode, 400);
        assert.equal(errorOf(type, await readBody(refused)).code, 'BAD_REQUEST');
      });
    }

    it('a read records the use of a session last used over a minute ago', async () => {
      const sessions = createSessionRepository(fx.core.database);
      const old = Date.now() - 120_000;
      await fx.core.database.db
        .withTables<{ sessions: { id: string; last_used_at: number } }>()
        .updateTable('sessions')
        .set({ last_used_at: old })
        .where('id', '=', readerTv.sessionId)
        .execute();
      // What a close does: this process forgets what it remembered of sessions (SQLite).
      fx.core.database.changeSignal('sessions')?.change();
      const read = await fx.call('GET', `/smarttv/users/${reader.userHash}/bookmarks/7`, {
        token: readerTv.accessToken,
      });
      assert.equal(read.statusCode, 200, read.body);
      const state = await sessions.state(readerTv.sessionId, true);
      assert.ok(state && state.last_used_at > old + 60_000, `touched: ${state?.last_used_at} vs ${old}`);
    });
  });

  describe('errors', () => {
    it('404 when nothing is stored', async () => {
      const response = await read(tv.accessToken, alice.userHash, 999999);
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().code, 'NOT_FOUND');
      assert.deepEqual(errorTypes(response), ['BOOKMARK_NOT_FOUND']);
    });

    it('400 for a limit outside 1-50 or a contentId that is not an id; 404 for an unknown account', async () => {
      for (const query of ['?limit=0', '?limit=51', '?limit=two', '?contentId=abc']) {
        const response = await recent(query);
        assert.equal(response.statusCode, 400, query);
        assert.equal(response.json().code, 'BAD_REQUEST', query);
      }
      const unknown = await fx.call('GET', '/accounts/acc-nobody/bookmarks', { key: fx.operatorKey });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(errorTypes(unknown), ['ACCOUNT_NOT_FOUND']);
    });
  });

  describe('security', () => {
    it('is in the API document with its scope bookmarks:read', async () => {
      const document = await fx.document();
      const operation = document.paths['/accounts/{accountNumber}/bookmarks'].get;
      assert.equal(operation.operationId, 'Bookmarks_GetRecentBookmarksAsync');
      assert.equal(operation['x-delegated-scope'], 'bookmarks:read');
      assert.deepEqual(Object.keys(operation.responses).sort(), [
        '200',
        '400',
        '401',
        '403',
        '404',
        '406',
        '429',
        '502',
        '503',
      ]);
    });
  });
});
