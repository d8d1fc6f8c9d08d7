import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import pg from 'pg';
import { createBookmarkRepository } from '../../src/client-api/bookmarks/repository.ts';
import { createDeviceRepository } from '../../src/client-api/devices/repository.ts';
import { createSessionRepository } from '../../src/client-api/sessions/repository.ts';
import { PIPELINE_APPLICATION_NAME } from '../../src/core/db/pipeline.ts';
import { ProblemError } from '../../src/core/errors.ts';
import { testDatabase } from '../helpers/harness.ts';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';

/**
 * The hot paths of an authenticated request: every raw statement (SQLite prepared statements, PostgreSQL
 * named statements with the session check folded in) answers what its Kysely twin answers, and the folded
 * routes refuse a closed session's token as the ordinary check does, writing nothing.
 */
describe('client-api hot paths: raw statements and their Kysely twins', () => {
  let f: AccountsFixture;
  let open: SignedIn;
  let closed: SignedIn;
  let userHash: string;
  const missing = { sessionId: 'no-such-session', idleBefore: 0 };
  const repositories = (prepared: boolean) => ({
    bookmarks: createBookmarkRepository(f.core.database, { prepared }),
    devices: createDeviceRepository(f.core.database, { prepared }),
  });
  const row = (contentId: number, positionAt: number, offset = 60) => ({
    user_hash: userHash,
    content_id: contentId,
    account_number: 'hp-1',
    version: 'v1',
    offset_seconds: offset,
    position_at: positionAt,
    device_id: 'tv-a',
    device_class: 'smarttv',
    updated_at: positionAt,
  });

  before(async () => {
    f = await accountsFixture();
    ({ userHash } = await f.account('hp-1'));
    await f.account('hp-empty');
    open = await f.signIn('hp-1@example.test', 'tv-a');
    closed = await f.signIn('hp-1@example.test', 'tv-b');
    const response = await f.call('DELETE', '/accounts/hp-1/devices/tv-b/sessions', { key: f.operatorKey });
    assert.equal(response.statusCode, 204);
  });
  after(() => f.close());

  it('folds only on PostgreSQL', () => {
    const { bookmarks, devices } = repositories(true);
    assert.equal(bookmarks.folded !== undefined, testDatabase === 'postgres');
    assert.equal(devices.listInSession !== undefined, testDatabase === 'postgres');
  });

  it('bookmark find and saveUnlessStale agree, written, refused as stale, found or not', async () => {
    const raw = repositories(true).bookmarks;
    const kysely = repositories(false).bookmarks;
    const t = Date.now();
    const first = await raw.saveUnlessStale(row(1, t));
    assert.deepEqual(first, row(1, t));
    assert.deepEqual(await kysely.saveUnlessStale(row(2, t)), row(2, t));
    // Older than the stored position: neither form writes.
    assert.equal(await raw.saveUnlessStale(row(2, t - 1000, 5)), undefined);
    assert.equal(await kysely.saveUnlessStale(row(1, t - 1000, 5)), undefined);
    assert.deepEqual(await raw.saveUnlessStale(row(2, t + 1000, 7)), row(2, t + 1000, 7));
    assert.deepEqual(await kysely.saveUnlessStale(row(1, t + 1000, 9)), row(1, t + 1000, 9));
    for (const filter of [
      { userHash, contentId: 1 },
      { userHash, contentId: 2, accountNumber: 'hp-1', version: 'v1' },
      { userHash, contentId: 2, version: 'v2' },
      { userHash, contentId: 2, accountNumber: 'hp-other' },
      { userHash, contentId: 3 },
      { userHash: 'nobody', contentId: 1 },
    ]) {
      assert.deepEqual(await raw.find(filter), await kysely.find(filter), JSON.stringify(filter));
    }
    assert.equal((await raw.find({ userHash, contentId: 1 }))?.offset_seconds, 9);
  });

  it('folded bookmark find agrees: open, closed or no session; found, narrowed away or absent', async (t) => {
    const raw = repositories(true).bookmarks.folded;
    const kysely = repositories(false).bookmarks.folded;
    if (raw === undefined || kysely === undefined) return t.skip('SQLite checks sessions from memory');
    const sessions = [open, closed].map((s) => ({ sessionId: s.sessionId, idleBefore: 0 }));
    const answers: string[] = [];
    for (const session of [...sessions, missing]) {
      for (const filter of [
        { userHash, contentId: 1 },
        { userHash, contentId: 1, version: 'v2' },
        { userHash, contentId: 404 },
      ]) {
        const answer = await raw.find(session, filter);
        assert.deepEqual(answer, await kysely.find(session, filter), JSON.stringify({ session, filter }));
        answers.push(
          `${answer.session?.closed_at === null ? 'open' : answer.session ? 'closed' : 'none'}:${answer.row ? 'row' : '-'}`,
        );
      }
    }
    assert.deepEqual(answers, [
      'open:row',
      'open:-',
      'open:-',
      'closed:row',
      'closed:-',
      'closed:-',
      'none:-',
      'none:-',
      'none:-',
    ]);
  });

  it('folded saves agree and write only for an open session that is not idle', async (t) => {
    const forms = { raw: repositories(true).bookmarks.folded, kysely: repositories(false).bookmarks.folded };
    if (forms.raw === undefined || forms.kysely === undefined)
      return t.skip('SQLite checks sessions from memory');
    const find = repositories(true).bookmarks.find;
    const base = Date.now() + 10_000;
    for (const [name, form] of Object.entries(forms)) {
      if (form === undefined) continue;
      const contentId = name === 'raw' ? 10 : 11;
      const usable = { sessionId: open.sessionId, idleBefore: 0 };
      const saved = await form.saveUnlessStale(usable, row(contentId, base));
      assert.equal(saved.session?.closed_at, null, name);
      assert.deepEqual(saved.written, row(contentId, base), name);
      const stale = await form.saveUnlessStale(usable, row(contentId, base - 1, 1));
      assert.equal(stale.session?.closed_at, null, name);
      assert.equal(stale.written, undefined, `${name}: stale`);
      const refusals = [
        { sessionId: closed.sessionId, idleBefore: 0 },
        missing,
        // Idle: last used before the bound.
        { sessionId: open.sessionId, idleBefore: base + 60_000 },
      ];
      for (const session of refusals) {
        const refused = await form.saveUnlessStale(session, row(contentId, base + 1, 2));
        assert.equal(refused.written, undefined, `${name}: ${JSON.stringify(session)}`);
        assert.deepEqual(
          refused,
          await (name === 'raw' ? forms.kysely : forms.raw)?.saveUnlessStale(
            session,
            row(contentId, base + 1, 2),
          ),
        );
      }
      assert.equal((await find({ userHash, contentId }))?.offset_seconds, 60, `${name}: nothing written`);
    }
  });

  it('the folded device list agrees: open, closed or no session; the account with devices, without, unknown', async (t) => {
    const raw = repositories(true).devices.listInSession;
    const kysely = repositories(false).devices.listInSession;
    if (raw === undefined || kysely === undefined) return t.skip('SQLite checks sessions from memory');
    for (const sessionId of [open.sessionId, closed.sessionId, 'no-such-session']) {
      for (const account of ['hp-1', 'hp-empty', 'no-such-account']) {
        const answer = await raw(sessionId, account);
        assert.deepEqual(answer, await kysely(sessionId, account), `${sessionId} ${account}`);
        const known = sessionId !== 'no-such-session';
        assert.equal(answer.session !== undefined, known);
        assert.equal(answer.account, known && account !== 'no-such-account');
        assert.deepEqual(
          answer.devices.map((device) => device.device_id),
          known && account === 'hp-1' ? ['tv-a', 'tv-b'] : [],
        );
      }
    }
  });
});

describe('client-api folded routes: a closed session is refused, whatever the route does', () => {
  let f: AccountsFixture;
  let alice: { userHash: string };
  let bob: { userHash: string };
  let tv: SignedIn;
  let revoked: SignedIn;

  before(async () => {
    f = await accountsFixture();
    alice = await f.account('fr-alice');
    bob = await f.account('fr-bob');
    tv = await f.signIn('fr-alice@example.test', 'tv-1');
    revoked = await f.signIn('fr-alice@example.test', 'tv-2');
    const saved = await f.call('POST', `/smarttv/tv-2/users/${alice.userHash}/bookmarks/7/30`, {
      token: revoked.accessToken,
    });
    assert.equal(saved.statusCode, 200, saved.body);
    const closed = await f.call('DELETE', '/accounts/fr-alice/devices/tv-2/sessions', { key: f.operatorKey });
    assert.equal(closed.statusCode, 204, closed.body);
  });
  after(() => f.close());

  it('an open session reads, saves and lists in one go', async () => {
    const saved = await f.call('POST', `/smarttv/tv-1/users/${alice.userHash}/bookmarks/7/45`, {
      token: tv.accessToken,
    });
    assert.equal(saved.statusCode, 200, saved.body);
    const read = await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/7`, {
      token: tv.accessToken,
    });
    assert.equal(read.json().offset, 45);
    const missing = await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/8`, {
      token: tv.accessToken,
    });
    assert.deepEqual([missing.statusCode, errorTypes(missing)], [404, ['BOOKMARK_NOT_FOUND']]);
    const devices = await f.call('GET', '/accounts/fr-alice/devices', { token: tv.accessToken });
    assert.deepEqual(
      devices.json().map((device: { mediaPlayerId: string }) => device.mediaPlayerId),
      ['tv-1', 'tv-2'],
    );
  });

  it("a closed session's token is 401 TOKEN_INVALID on every folded route, and its save writes nothing", async () => {
    const token = revoked.accessToken;
    const answers = [
      await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/7`, { token }),
      await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/8`, { token }),
      await f.call('POST', `/smarttv/tv-2/users/${alice.userHash}/bookmarks/7/999`, { token }),
      await f.call('POST', `/smarttv/tv-2/users/${alice.userHash}/bookmarks/9/999`, { token }),
      await f.call('GET', '/accounts/fr-alice/devices', { token }),
      // Refusals raised before any statement ran get the ordinary check first: 401, not 403 or 400.
      await f.call('POST', `/smarttv/tv-1/users/${alice.userHash}/bookmarks/7/999`, { token }),
      await f.call('GET', `/smarttv/users/${bob.userHash}/bookmarks/7`, { token }),
      await f.call('GET', '/accounts/fr-bob/devices', { token }),
      await f.call('POST', `/smarttv/tv-2/users/${alice.userHash}/bookmarks/7/-5`, { token }),
    ];
    for (const [index, answer] of answers.entries()) {
      assert.equal(answer.statusCode, 401, `${index}: ${answer.body}`);
      assert.deepEqual(errorTypes(answer), ['TOKEN_INVALID'], `${index}: ${answer.body}`);
    }
    const read = await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/7`, {
      token: tv.accessToken,
    });
    assert.equal(read.json().offset, 45);
    const never = await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/9`, {
      token: tv.accessToken,
    });
    assert.equal(never.statusCode, 404);
  });

  it('a folded read records the use of a session last used over a minute ago', async () => {
    const sessions = createSessionRepository(f.core.database);
    const old = Date.now() - 120_000;
    await f.core.database.db
      .withTables<{ sessions: { id: string; last_used_at: number } }>()
      .updateTable('sessions')
      .set({ last_used_at: old })
      .where('id', '=', tv.sessionId)
      .execute();
    // What a close does: this process forgets what it remembered of sessions (SQLite).
    f.core.database.changeSignal('sessions')?.change();
    const read = await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/7`, {
      token: tv.accessToken,
    });
    assert.equal(read.statusCode, 200, read.body);
    const state = await sessions.state(tv.sessionId, true);
    assert.ok(state && state.last_used_at > old + 60_000, `touched: ${state?.last_used_at} vs ${old}`);
  });

  it('a save whose connection is killed under it is 503 STORE_UNAVAILABLE, writes nothing, and the next one lands', async (t) => {
    if (testDatabase !== 'postgres') return t.skip('PostgreSQL: a pipelined connection to kill');
    const admin = new pg.Client({ connectionString: f.core.env.DATABASE_URL });
    await admin.connect();
    try {
      // Hold the bookmark's row so the save's statement waits on its connection, then kill that connection.
      await admin.query('begin');
      await admin.query('select 1 from bookmarks where user_hash = $1 and content_id = 7 for update', [
        alice.userHash,
      ]);
      const pending = f.call('POST', `/smarttv/tv-1/users/${alice.userHash}/bookmarks/7/500`, {
        token: tv.accessToken,
      });
      let killed = 0;
      for (const deadline = Date.now() + 5000; killed === 0; ) {
        const { rows } = await admin.query<{ killed: boolean }>(
          `select pg_terminate_backend(pid) as killed from pg_stat_activity
            where datname = current_database() and application_name = $1 and wait_event_type = 'Lock'`,
          [PIPELINE_APPLICATION_NAME],
        );
        killed = rows.filter((row) => row.killed).length;
        if (killed === 0 && Date.now() > deadline) assert.fail('the save never waited on the lock');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await admin.query('rollback');
      const refused = await pending;
      assert.deepEqual([refused.statusCode, errorTypes(refused)], [503, ['STORE_UNAVAILABLE']], refused.body);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.json().code, 'SERVICE_UNAVAILABLE');
      const read = await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/7`, {
        token: tv.accessToken,
      });
      assert.equal(read.json().offset, 45, 'the killed save wrote nothing');
      const saved = await f.call('POST', `/smarttv/tv-1/users/${alice.userHash}/bookmarks/7/500`, {
        token: tv.accessToken,
      });
      assert.deepEqual([saved.statusCode, saved.json().offset], [200, 500], saved.body);
    } finally {
      await admin.end();
    }
  });

  it('a route that folds the check but never settles it still refuses a closed session', async () => {
    const app = Fastify();
    app.setErrorHandler((error, _request, reply) =>
      error instanceof ProblemError
        ? reply.code(error.status).send(error.toBody())
        : reply.code(500).send({ code: 'INTERNAL_ERROR' }),
    );
    app.get('/forgetful', { ...f.api.guards.foldingSessionCheck() }, async () => ({ secret: 'data' }));
    await app.ready();
    try {
      const refused = await app.inject({
        url: '/forgetful',
        headers: { authorization: `Bearer ${revoked.accessToken}` },
      });
      assert.deepEqual([refused.statusCode, errorTypes(refused)], [401, ['TOKEN_INVALID']], refused.body);
      assert.doesNotMatch(refused.body, /secret/);
      const allowed = await app.inject({
        url: '/forgetful',
        headers: { authorization: `Bearer ${tv.accessToken}` },
      });
      assert.deepEqual([allowed.statusCode, allowed.json()], [200, { secret: 'data' }]);
    } finally {
      await app.close();
    }
  });
});
