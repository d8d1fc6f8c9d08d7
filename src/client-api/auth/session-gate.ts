import type { SessionRepository } from '../sessions/repository.ts';
import { bearerRefusals } from './credentials.ts';

/** The device session a request acts in: what a token names. */
export interface SessionRef {
  readonly sessionId: string;
}

/**
 * How a device token's session is checked, in one place: open (not closed) and not idle for longer than
 * the idle timeout, else 401 TOKEN_INVALID; its last use recorded at most every TOUCH_RESOLUTION_MS. The
 * guards' `authenticate` runs it for every device token before anything else about the request, so no
 * route and no repository has a session check of its own to forget.
 */
export interface SessionGate {
  check(session: SessionRef): Promise<void>;
}

/** A session's last use is written at most this often: a coarse idle clock, not a write per request. */
export const TOUCH_RESOLUTION_MS = 60_000;

export function createSessionGate(
  sessions: Pick<SessionRepository, 'state' | 'touch'>,
  idleTimeoutSeconds: number,
  clock: () => number = Date.now,
): SessionGate {
  const idleMs = idleTimeoutSeconds * 1000;

  return {
    /**
     * Revocation is immediate: the state is read on every request (on SQLite from this process's memory only
     * while no session has been closed anywhere since it was read: sessions/repository.ts).
     */
    async check(session) {
      let state = await sessions.state(session.sessionId);
      const now = clock();
      // Idle by what this process last saw: another process may have used the session since.
      if (state && now - state.last_used_at > idleMs) state = await sessions.state(session.sessionId, true);
      if (!state || state.closed_at !== null || now - state.last_used_at > idleMs) {
        throw bearerRefusals.TOKEN_INVALID();
      }
      if (now - state.last_used_at > TOUCH_RESOLUTION_MS) await sessions.touch(session.sessionId, now);
    },
  };
}
