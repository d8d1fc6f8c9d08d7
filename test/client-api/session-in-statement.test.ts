import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createAccountRepository } from '../../src/client-api/accounts/repository.ts';
import { createSessionGate } from '../../src/client-api/auth/session-gate.ts';
import { createBookmarkRepository } from '../../src/client-api/bookmarks/repository.ts';
import { createDeviceRepository } from '../../src/client-api/devices/repository.ts';
import { createSessionRepository } from '../../src/client-api/sessions/repository.ts';
import { PIPELINE_APPLICATION_NAME } from '../../src/core/db/pipeline.ts';
import { testDatabase } from '../helpers/harness.ts';
import {
  type AccountsFixture,
  accountsFixture,
  bookmarkRow,
  errorTypes,
  isTokenRefusal,
  type SignedIn,
} from './accounts-fixtures.ts';

/**
 * The hot paths' repositories (each statement written once, compiled per dialect) and the device session
 * they check for a device token: on both stores, what each answers and what each refuses.
 */
describe('client-api hot-path repositories: answers, and the device session they check', () => {
  let f: AccountsFixture;
  let open: SignedIn;
  let closed: SignedIn;
  let userHash: string;
  const IDLE_SECONDS = 3600;
  /** A gate whose clock runs `ahead` ms ahead: past the idle timeout, every session is idle. */
  const repositories = (ahead = 0) => {
    const sessions = createSessionRepository(f.core.database);
    const gate = createSessionGate(sessions, IDLE_SECONDS, () => Date.now() + ahead);
    return {
      accounts: createAccountRepository(f.core.database),
      bookmarks: createBookmarkRepository(f.core.database, gate),
      devices: createDeviceRepository(f.core.database, gate),
      sessions,
    };
  };
  const row = (contentId: number, positionAt: number, offset = 60) =>
    bookmarkRow({ userHash, accountNumber: 'hp-1', version: 'v1' }, contentId, positionAt, offset);

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

  it('a bookmark save writes unless the stored position is newer; a read finds it, narrowed by account and version', async () => {
    const { bookmarks } = repositories();
    const t = Date.now();
    assert.deepEqual(await bookmarks.saveUnlessStale(row(1, t)), row(1, t));
    assert.equal(await bookmarks.saveUnlessStale(row(1, t - 1000, 5)), undefined, 'older: not written');
    assert.deepEqual(await bookmarks.saveUnlessStale(row(1, t + 1000, 9)), row(1, t + 1000, 9));
    const found = (filter: Parameters<typeof bookmarks.find>[0]) =>
      bookmarks.find(filter).then((bookmark) => bookmark?.offset_seconds);
    assert.equal(await found({ userHash, contentId: 1 }), 9);
    assert.equal(await found({ userHash, contentId: 1, accountNumber: 'hp-1', version: 'v1' }), 9);
    assert.equal(await found({ userHash, contentId: 1, version: 'v2' }), undefined);
    assert.equal(await found({ userHash, contentId: 1, accountNumber: 'hp-other' }), undefined);
    assert.equal(await found({ userHash, contentId: 3 }), undefined);
    assert.equal(await found({ userHash: 'nobody', contentId: 1 }), undefined);
  });

  it('as a device: an open session reads and saves; a closed, unknown or idle one is refused and writes nothing', async () => {
    const t = Date.now() + 5_000;
    const live = repositories();
    assert.deepEqual(await live.bookmarks.saveUnlessStale(row(10, t), open), row(10, t));
    assert.equal(await live.bookmarks.saveUnlessStale(row(10, t - 1, 1), open), undefined, 'stale');
    assert.equal((await live.bookmarks.find({ userHash, contentId: 10 }, open))?.offset_seconds, 60);
    assert.equal(await live.bookmarks.find({ userHash, contentId: 404 }, open), undefined);
    const idle = repositories(IDLE_SECONDS * 1000 + 60_000);
    const refused = [
      ['closed', live, closed],
      ['unknown', live, { sessionId: 'no-such-session' }],
      ['idle', idle, open],
    ] as const;
    for (const [name, { bookmarks }, session] of refused) {
      await assert.rejects(
        bookmarks.saveUnlessStale(row(10, t + 1, 2), session),
        isTokenRefusal,
        `${name} save`,
      );
      await assert.rejects(
        bookmarks.find({ userHash, contentId: 10 }, session),
        isTokenRefusal,
        `${name} read`,
      );
    }
    assert.equal(
      (await live.bookmarks.find({ userHash, contentId: 10 }))?.offset_seconds,
      60,
      'nothing written',
    );
  });

  it('the device list: the account with devices, without, unknown; as a device, only while its session is open', async () => {
    const { devices } = repositories();
    const ids = async (account: string, as?: { sessionId: string }) =>
      (await devices.list(account, as))?.map((device) => device.device_id);
    assert.deepEqual(await ids('hp-1'), ['tv-a', 'tv-b']);
    assert.deepEqual(await ids('hp-empty'), []);
    assert.equal(await ids('no-such-account'), undefined);
    assert.deepEqual(await ids('hp-1', open), ['tv-a', 'tv-b']);
    assert.deepEqual(await ids('hp-empty', open), []);
    assert.equal(await ids('no-such-account', open), undefined);
    for (const session of [closed, { sessionId: 'no-such-session' }]) {
      await assert.rejects(devices.list('hp-1', session), isTokenRefusal, session.sessionId);
    }
  });

  it('the device list: oldest first, ties by device id, every listed column as stored, with a session or without', async () => {
    const { devices } = repositories();
    await f.account('hp-order');
    const stored = [
      { device_id: 'b', registered_at: 3_000, name: 'Salón "grande" \\ 📺', last_playback_at: 9_000 },
      { device_id: 'z', registered_at: 1_000, name: 'Zed', last_playback_at: null },
      { device_id: 'a', registered_at: 3_000, name: "Ana's <TV>", last_playback_at: null },
      { device_id: 'é', registered_at: 3_000, name: '\u0001ctl', last_playback_at: null },
    ];
    for (const { device_id, name, registered_at, last_playback_at } of stored) {
      // In the table's column order, as the product inserts (one statement shape in queries/captured.*).
      assert.ok(
        await devices.insert({
          account_number: 'hp-order',
          device_id,
          name,
          device_class: 'smarttv',
          enabled: 1,
          registered_at,
          activated_at: 1,
          last_seen_at: registered_at + 1,
          last_playback_at,
        }),
      );
    }
    // z (registered first), then the tie at 3,000 by id: a, b, é.
    const expected = [1, 2, 0, 3].map((index) => {
      const { device_id, registered_at, name, last_playback_at } = stored[index] ?? stored[0];
      return { device_id, registered_at, name, last_playback_at, enabled: 1, device_class: 'smarttv' };
    });
    for (const as of [undefined, open]) {
      const listed = (await devices.list('hp-order', as))?.map(
        ({ device_id, registered_at, name, last_playback_at, enabled, device_class, last_seen_at }) => {
          assert.equal(last_seen_at, registered_at + 1);
          return { device_id, registered_at, name, last_playback_at, enabled, device_class };
        },
      );
      assert.deepEqual(listed, expected, as ? 'with a session' : 'without');
    }
  });

  it('accounts and session states are found or not; a closed session reads as closed', async () => {
    const { accounts, sessions } = repositories();
    assert.equal((await accounts.find('hp-1'))?.userHash, userHash);
    assert.equal(await accounts.find('no-such-account'), undefined);
    const states = [];
    for (const id of [open.sessionId, closed.sessionId, 'no-such-session']) {
      const state = await sessions.state(id, true);
      states.push(state?.closed_at === null ? 'open' : state ? 'closed' : 'none');
    }
    assert.deepEqual(states, ['open', 'closed', 'none']);
  });
});

describe('client-api: the operations whose statement checks the session refuse a closed one, whatever else the request does', () => {
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

  it("a closed session's token is 401 TOKEN_INVALID on the bookmark read and save and the device list, and its save writes nothing", async () => {
    const token = revoked.accessToken;
    const answers = [
      await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/7`, { token }),
      await f.call('GET', `/smarttv/users/${alice.userHash}/bookmarks/8`, { token }),
      await f.call('POST', `/smarttv/tv-2/users/${alice.userHash}/bookmarks/7/999`, { token }),
      await f.call('POST', `/smarttv/tv-2/users/${alice.userHash}/bookmarks/9/999`, { token }),
      await f.call('GET', '/accounts/fr-alice/devices', { token }),
      // Refusals raised before any statement ran tell the closed session first: 401, not 403 or 400.
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

  it('a read records the use of a session last used over a minute ago', async () => {
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
});
