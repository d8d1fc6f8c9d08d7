import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccountRepository } from '../../src/client-api/accounts/repository.ts';
import { createSessionGate, TOUCH_RESOLUTION_MS } from '../../src/client-api/auth/session-gate.ts';
import { createBookmarkRepository } from '../../src/client-api/bookmarks/repository.ts';
import { createDeviceRepository } from '../../src/client-api/devices/repository.ts';
import { createSessionRepository } from '../../src/client-api/sessions/repository.ts';
import {
  type AccountsFixture,
  accountsFixture,
  bookmarkRow,
  isTokenRefusal,
  type SignedIn,
} from './accounts-fixtures.ts';

/**
 * The hot paths' repositories, on both stores: what each answers. And the session gate every device token
 * passes (guards.authenticate): what it refuses, and when it records a session's use. The operations
 * themselves, through HTTP, are in bookmarks-save.test.ts and bookmarks-read.test.ts.
 */
describe('client-api hot-path repositories, and the session gate', () => {
  let f: AccountsFixture;
  let open: SignedIn;
  let closed: SignedIn;
  let userHash: string;
  const IDLE_SECONDS = 3600;
  const repositories = () => ({
    accounts: createAccountRepository(f.core.database),
    bookmarks: createBookmarkRepository(f.core.database),
    devices: createDeviceRepository(f.core.database),
    sessions: createSessionRepository(f.core.database),
  });
  /** A gate whose clock runs `ahead` ms ahead: past the idle timeout, every session is idle. */
  const gate = (ahead = 0) =>
    createSessionGate(createSessionRepository(f.core.database), IDLE_SECONDS, () => Date.now() + ahead);
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

  it('the gate passes an open session; a closed, unknown or idle one is 401 TOKEN_INVALID', async () => {
    await gate().check(open);
    await assert.rejects(gate().check(closed), isTokenRefusal, 'closed');
    await assert.rejects(gate().check({ sessionId: 'no-such-session' }), isTokenRefusal, 'unknown');
    await assert.rejects(gate(IDLE_SECONDS * 1000 + 60_000).check(open), isTokenRefusal, 'idle');
  });

  it("the gate records a session's use once its last use is over a minute old, not on every request", async () => {
    const { sessions } = repositories();
    const setLastUse = async (at: number) => {
      await f.core.database.db
        .withTables<{ sessions: { id: string; last_used_at: number } }>()
        .updateTable('sessions')
        .set({ last_used_at: at })
        .where('id', '=', open.sessionId)
        .execute();
      f.core.database.changeSignal('sessions')?.change();
    };
    const lastUse = async () => (await sessions.state(open.sessionId, true))?.last_used_at;
    const recent = Date.now() - TOUCH_RESOLUTION_MS / 2;
    await setLastUse(recent);
    await gate().check(open);
    assert.equal(await lastUse(), recent, 'used within the minute: not written');
    const old = Date.now() - 2 * TOUCH_RESOLUTION_MS;
    await setLastUse(old);
    await gate().check(open);
    assert.ok(((await lastUse()) ?? 0) > old + TOUCH_RESOLUTION_MS, 'over a minute old: recorded');
  });

  it('the device list: the account with devices, without, unknown', async () => {
    const { devices } = repositories();
    const ids = async (account: string) => (await devices.list(account))?.map((device) => device.device_id);
    assert.deepEqual(await ids('hp-1'), ['tv-a', 'tv-b']);
    assert.deepEqual(await ids('hp-empty'), []);
    assert.equal(await ids('no-such-account'), undefined);
    assert.deepEqual(
      (await devices.all('hp-1'))?.map((device) => device.device_id),
      ['tv-a', 'tv-b'],
    );
    assert.equal(await devices.all('no-such-account'), undefined);
  });

  it('the device list: oldest first, ties by device id, every listed column as stored', async () => {
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
    const listed = (await devices.list('hp-order'))?.map(
      ({ device_id, registered_at, name, last_playback_at, enabled, device_class, last_seen_at }) => {
        assert.equal(last_seen_at, registered_at + 1);
        return { device_id, registered_at, name, last_playback_at, enabled, device_class };
      },
    );
    assert.deepEqual(listed, expected);
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
