import type { SessionRepository, SessionState } from '../sessions/repository.ts';
import { bearerRefusals } from './credentials.ts';

/** The device session a request acts in: what a token names, what a statement checks. */
export interface SessionRef {
  readonly sessionId: string;
}

/**
 * How a device token's session is checked, in one place: open (not closed) and not idle for longer than
 * the idle timeout; its last use recorded at most every TOUCH_RESOLUTION_MS. The guard checks with a read
 * of its own (`check`); a repository whose statement reads the session's state beside its data (one round
 * trip on PostgreSQL) asks for the bound its statement writes under (`bound`) and hands the state back
 * (`accept`). Either way a refusal is 401 TOKEN_INVALID.
 */
export interface SessionGate {
  check(session: SessionRef): Promise<void>;
  /**
   * The request's time, and the last use before which a session is idle: a write's condition. `recent`:
   * this process saw the session in use less than TOUCH_RESOLUTION_MS ago, so no use is due to be recorded
   * and a write whose condition checks the session need not read its state back (nothing written: `check`).
   */
  bound(session?: SessionRef): { now: number; idleBefore: number; recent: boolean };
  accept(session: SessionRef, state: SessionState | undefined, now: number): Promise<void>;
}

/** A session's last use is written at most this often: a coarse idle clock, not a write per request. */
export const TOUCH_RESOLUTION_MS = 60_000;

/** Most sessions whose last use a process keeps per TOUCH_RESOLUTION_MS (about 100 bytes each); past it, `recent` is false. */
const RECENT_USES = 100_000;

/**
 * The last use this process saw of each session (read, or recorded by it), kept for at least
 * TOUCH_RESOLUTION_MS: two maps, the older dropped as a whole every TOUCH_RESOLUTION_MS (no per-entry
 * bookkeeping on the hot path). It only ever decides whether to read a state back, never whether to accept
 * a session: a session closed elsewhere is refused by the write's own condition. Nothing is kept until a
 * caller first asks (`recent`): where no statement checks the session itself (SQLite), none ever does.
 */
function recentUses(clock: () => number) {
  let asked = false;
  let current = new Map<string, number>();
  let previous = new Map<string, number>();
  let rotatedAt = clock();
  const rotate = (now: number) => {
    if (now - rotatedAt < TOUCH_RESOLUTION_MS) return;
    previous = current;
    current = new Map();
    rotatedAt = now;
  };
  return {
    saw(id: string, lastUsedAt: number, now: number) {
      if (!asked) return;
      rotate(now);
      if (current.size < RECENT_USES || current.has(id)) current.set(id, lastUsedAt);
    },
    recent(id: string, now: number): boolean {
      asked = true;
      rotate(now);
      const lastUsedAt = current.get(id) ?? previous.get(id);
      return lastUsedAt !== undefined && now - lastUsedAt <= TOUCH_RESOLUTION_MS;
    },
  };
}

export function createSessionGate(
  sessions: Pick<SessionRepository, 'state' | 'touch'>,
  idleTimeoutSeconds: number,
  clock: () => number = Date.now,
): SessionGate {
  const idleMs = idleTimeoutSeconds * 1000;
  const uses = recentUses(clock);

  async function accept(session: SessionRef, state: SessionState | undefined, now: number): Promise<void> {
    if (!state || state.closed_at !== null || now - state.last_used_at > idleMs) {
      throw bearerRefusals.TOKEN_INVALID();
    }
    if (now - state.last_used_at > TOUCH_RESOLUTION_MS) {
      await sessions.touch(session.sessionId, now);
      uses.saw(session.sessionId, now, now);
    } else {
      uses.saw(session.sessionId, state.last_used_at, now);
    }
  }

  return {
    accept,
    bound(session) {
      const now = clock();
      return {
        now,
        idleBefore: now - idleMs,
        recent: session !== undefined && uses.recent(session.sessionId, now),
      };
    },
    /**
     * Revocation is immediate: the state is read on every request (on SQLite from this process's memory only
     * while no session has been closed anywhere since it was read: sessions/repository.ts).
     */
    async check(session) {
      let state = await sessions.state(session.sessionId);
      const now = clock();
      // Idle by what this process last saw: another process may have used the session since.
      if (state && now - state.last_used_at > idleMs) state = await sessions.state(session.sessionId, true);
      await accept(session, state, now);
    },
  };
}
