import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSessionGate, TOUCH_RESOLUTION_MS } from '../../src/client-api/auth/session-gate.ts';
import { createBookmarkRepository } from '../../src/client-api/bookmarks/repository.ts';
import { createSessionRepository } from '../../src/client-api/sessions/repository.ts';
import { testDatabase } from '../helpers/harness.ts';
import {
  type AccountsFixture,
  accountsFixture,
  bookmarkRow,
  isTokenRefusal,
  type SignedIn,
} from './accounts-fixtures.ts';

/**
 * A device's save of a session this process saw in use within the minute: on PostgreSQL its statement
 * checks the session in its condition and reads nothing back. What it answers must be what the save that
 * reads the state answers, on both stores: written, stale, refused; and a session's use is still recorded
 * once a minute.
 */
describe('client-api: the save of a session in recent use', () => {
  let f: AccountsFixture;
  let userHash: string;
  const IDLE_SECONDS = 30;
  let tv: SignedIn;

  /** PostgreSQL's save asks the gate whether its session is in recent use; SQLite's checks first instead. */
  const savesAsk = testDatabase === 'postgres';
  /** Repositories over a gate whose clock the test moves. */
  const withClock = (start = Date.now(), idleSeconds = IDLE_SECONDS) => {
    const clock = { now: start };
    const sessions = createSessionRepository(f.core.database);
    const gate = createSessionGate(sessions, idleSeconds, () => clock.now);
    return { clock, gate, bookmarks: createBookmarkRepository(f.core.database, gate) };
  };
  const row = (contentId: number, positionAt: number, offset: number) =>
    bookmarkRow({ userHash, accountNumber: 'rs-1', version: null }, contentId, positionAt, offset);
  /** The session's last use as stored, read afresh. */
  const lastUse = async (id: string) =>
    (await createSessionRepository(f.core.database).state(id, true))?.last_used_at;
  const setLastUse = async (id: string, at: number) => {
    await f.core.database.db
      .withTables<{ sessions: { id: string; last_used_at: number } }>()
      .updateTable('sessions')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .execute();
    f.core.database.changeSignal('sessions')?.change();
  };

  before(async () => {
    f = await accountsFixture();
    ({ userHash } = await f.account('rs-1'));
    tv = await f.signIn('rs-1@example.test', 'tv-a');
  });
  after(() => f.close());

  it('the gate counts a session as in recent use for a minute after it read or recorded its use, per session', async () => {
    const start = Date.now();
    const { clock, gate } = withClock(start);
    // Kept only once a caller asks: a gate nobody asks (SQLite's) keeps nothing of the uses it accepts.
    await gate.accept(tv, { closed_at: null, last_used_at: start - 1_000 }, start);
    assert.equal(gate.bound(tv).recent, false, 'seen before anyone asked: not kept');
    await gate.accept(tv, { closed_at: null, last_used_at: start - 1_000 }, start);
    assert.equal(gate.bound(tv).recent, true, 'just seen');
    assert.equal(gate.bound({ sessionId: 'another' }).recent, false, 'another session');
    assert.equal(gate.bound().recent, false, 'no session');
    clock.now = start - 1_000 + TOUCH_RESOLUTION_MS;
    assert.equal(gate.bound(tv).recent, true, 'a minute after its last use');
    clock.now += 1;
    assert.equal(gate.bound(tv).recent, false, 'past the minute');
    await assert.rejects(
      gate.accept(tv, { closed_at: start, last_used_at: start }, clock.now),
      isTokenRefusal,
    );
    assert.equal(gate.bound(tv).recent, false, 'a refused state is not a use');
  });

  it('a recent session saves; an older position is not written and not refused; each answer as the full check gives it', async () => {
    const t = Date.now();
    const { bookmarks, gate } = withClock(t);
    assert.deepEqual(
      await bookmarks.saveUnlessStale(row(1, t, 10), tv),
      row(1, t, 10),
      'first: reads the state',
    );
    assert.equal(gate.bound(tv).recent, savesAsk, 'kept where a save asks');
    assert.deepEqual(
      await bookmarks.saveUnlessStale(row(1, t + 1, 11), tv),
      row(1, t + 1, 11),
      'recent: written',
    );
    assert.equal(await bookmarks.saveUnlessStale(row(1, t - 5, 12), tv), undefined, 'recent, stale: ignored');
    assert.equal((await bookmarks.find({ userHash, contentId: 1 }))?.offset_seconds, 11);
  });

  it('a recent session closed in the meantime, or idle by now, is refused and its save writes nothing', async () => {
    const t = Date.now();
    const idle = withClock(t);
    assert.ok(await idle.bookmarks.saveUnlessStale(row(2, t, 20), tv));
    // Idle (30 s) but still within the minute in which no use is due: the statement's condition refuses it.
    idle.clock.now = ((await lastUse(tv.sessionId)) ?? t) + IDLE_SECONDS * 1000 + 1_000;
    assert.equal(idle.gate.bound(tv).recent, savesAsk, 'kept where a save asks');
    await assert.rejects(idle.bookmarks.saveUnlessStale(row(2, t + 1, 21), tv), isTokenRefusal, 'idle');

    const other = await f.signIn('rs-1@example.test', 'tv-b');
    const live = withClock(t);
    assert.ok(await live.bookmarks.saveUnlessStale(row(3, t, 30), other));
    assert.equal(live.gate.bound(other).recent, savesAsk, 'kept where a save asks');
    const closed = await f.call('DELETE', '/accounts/rs-1/devices/tv-b/sessions', { key: f.operatorKey });
    assert.equal(closed.statusCode, 204, closed.body);
    await assert.rejects(live.bookmarks.saveUnlessStale(row(3, t + 1, 31), other), isTokenRefusal, 'closed');
    await assert.rejects(
      live.bookmarks.saveUnlessStale(row(3, t - 1, 32), other),
      isTokenRefusal,
      'closed, stale',
    );
    const stored = await live.bookmarks.find({ userHash, contentId: 2 });
    assert.equal(stored?.offset_seconds, 20, 'the idle save wrote nothing');
    assert.equal(
      (await live.bookmarks.find({ userHash, contentId: 3 }))?.offset_seconds,
      30,
      'nor the closed',
    );
  });

  it("a session's use is recorded once its last use is over a minute old, by what this process saw", async () => {
    const start = Date.now();
    const { bookmarks, clock } = withClock(start, 3600);
    await setLastUse(tv.sessionId, start);
    assert.ok(await bookmarks.saveUnlessStale(row(4, start, 40), tv));
    // Stored older than this process saw it (as if written back by another): on PostgreSQL a save in the
    // minute after this process saw the session in use reads nothing back, so records nothing; on SQLite
    // every save reads the state first (SessionGate.check), finds it 70 s old and records this use.
    await setLastUse(tv.sessionId, start - 40_000);
    clock.now = start + 30_000;
    assert.ok(await bookmarks.saveUnlessStale(row(4, start + 1, 41), tv));
    const within = testDatabase === 'postgres' ? start - 40_000 : start + 30_000;
    assert.equal(await lastUse(tv.sessionId), within, 'within the minute');
    // Past the minute it reads the state again, finds the last use over a minute old and records this one.
    await setLastUse(tv.sessionId, start - 40_000);
    clock.now = start + TOUCH_RESOLUTION_MS + 1;
    assert.ok(await bookmarks.saveUnlessStale(row(4, start + 2, 42), tv));
    assert.equal(await lastUse(tv.sessionId), start + TOUCH_RESOLUTION_MS + 1, 'past the minute: recorded');
  });
});
