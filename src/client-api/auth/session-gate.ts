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
  /** The request's time, and the last use before which a session is idle: a write's condition. */
  bound(): { now: number; idleBefore: number };
  accept(session: SessionRef, state: SessionState | undefined, now: number): Promise<void>;
}

/** A session's last use is written at most this often: a coarse idle clock, not a write per request. */
const TOUCH_RESOLUTION_MS = 60_000;

export function createSessionGate(
  sessions: Pick<SessionRepository, 'state' | 'touch'>,
  idleTimeoutSeconds: number,
  clock: () => number = Date.now,
): SessionGate {
  const idleMs = idleTimeoutSeconds * 1000;

  async function accept(session: SessionRef, state: SessionState | undefined, now: number): Promise<void> {
    if (!state || state.closed_at !== null || now - state.last_used_at > idleMs) {
      throw bearerRefusals.TOKEN_INVALID();
    }
    if (now - state.last_used_at > TOUCH_RESOLUTION_MS) await sessions.touch(session.sessionId, now);
  }

  return {
    accept,
    bound() {
      const now = clock();
      return { now, idleBefore: now - idleMs };
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
