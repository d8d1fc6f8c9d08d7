import { LRUCache } from 'lru-cache';
import type { Database } from '../../core/db/database.ts';
import { prepared } from '../../core/db/prepared.ts';
import { stoppedStream } from '../playback/repository.ts';
import type { AccountTables } from '../tables.ts';

export type SessionRow = AccountTables['sessions'];

/** What the access-token check reads: the one indexed read per authenticated request. */
export interface SessionState {
  closed_at: number | null;
  last_used_at: number;
}

/** Most session states remembered per process (about 100 bytes each). */
const REMEMBERED_STATES = 50_000;

export interface SessionFilter {
  accountNumber: string;
  deviceId?: string;
  /** Undefined addresses every qspVersion (`All`). */
  qspVersion?: string;
  /** One session only: the one a credential rests on (its sign-out), or a replayed refresh token's. */
  sessionId?: string;
}

export function createSessionRepository(database: Database) {
  const db = database.db.withTables<AccountTables>();
  /** Every request with a device token reads its session's state (SessionGate): prepared once. */
  const stateOf = prepared<{ id: string }, SessionState>(database, (arg) =>
    db.selectFrom('sessions').select(['closed_at', 'last_used_at']).where('id', '=', arg('id')),
  );
  const readState = (id: string) => stateOf.first({ id });

  // Session states as last read, each with the `sessions` change signal's value from before that read.
  // Every close changes the signal after its commit, in whichever process it runs, so an entry whose
  // value is still current cannot hide a close. No signal (PostgreSQL): nothing is remembered.
  const signal = database.changeSignal('sessions');
  const remembered = new LRUCache<string, SessionState & { signal: number }>({ max: REMEMBERED_STATES });

  const closed = (count: bigint | number) => {
    if (Number(count) > 0) signal?.change();
    return Number(count);
  };

  /**
   * A device left with no open session plays nothing: its stream ends with its last session, at once, not
   * PLAYBACK_STALE_AFTER later (a signed-out TV's stream would otherwise hold a screen of the limit).
   */
  const endStreamsOfSignedOut = (accountNumber: string, deviceId?: string) =>
    db
      .updateTable('devices')
      .set(stoppedStream)
      .where('account_number', '=', accountNumber)
      .$if(deviceId !== undefined, (query) => query.where('device_id', '=', deviceId ?? ''))
      .where('stream_reported_at', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('sessions')
              .select('sessions.id')
              .whereRef('sessions.account_number', '=', 'devices.account_number')
              .whereRef('sessions.device_id', '=', 'devices.device_id')
              .where('sessions.closed_at', 'is', null),
          ),
        ),
      )
      .execute();

  return {
    async insert(row: SessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },

    async find(id: string): Promise<SessionRow | undefined> {
      return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /**
     * The session's state as of the last close anywhere: on SQLite, remembered in this process while the
     * store's `sessions` change signal holds still (a 6-byte read per event-loop turn instead of a
     * statement per request); read afresh otherwise, or when `fresh` (another process may have touched it).
     */
    async state(id: string, fresh = false): Promise<SessionState | undefined> {
      if (signal === undefined) return readState(id);
      const current = await signal.currentThisTurn();
      const hit = fresh ? undefined : remembered.get(id);
      if (hit !== undefined && hit.signal === current) return hit;
      const state = await readState(id);
      if (state === undefined) {
        remembered.delete(id);
        return undefined;
      }
      const entry = { closed_at: state.closed_at, last_used_at: state.last_used_at, signal: current };
      remembered.set(id, entry);
      return entry;
    },

    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', id).execute();
      const entry = remembered.get(id);
      if (entry !== undefined && entry.last_used_at < at) entry.last_used_at = at;
    },

    /**
     * Replaces the refresh hash only if it is still `expectedHash`, so a refresh token is used once even
     * when two requests race with it. False when it had already been used or the session is closed.
     */
    async rotate(
      id: string,
      expectedHash: string,
      changes: Pick<
        SessionRow,
        'refresh_hash' | 'refresh_expires_at' | 'last_used_at' | 'tier' | 'scope' | 'user_profile'
      >,
    ): Promise<boolean> {
      const result = await db
        .updateTable('sessions')
        .set(changes)
        .where('id', '=', id)
        .where('refresh_hash', '=', expectedHash)
        .where('closed_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Closes the open sessions that match; answers how many were closed. Every process sees it at once. */
    async close(filter: SessionFilter, at: number): Promise<number> {
      const result = await db
        .updateTable('sessions')
        .set({ closed_at: at })
        .where('account_number', '=', filter.accountNumber)
        .where('closed_at', 'is', null)
        .$if(filter.deviceId !== undefined, (query) => query.where('device_id', '=', filter.deviceId ?? ''))
        .$if(filter.qspVersion !== undefined, (query) =>
          query.where('qsp_version', '=', filter.qspVersion ?? ''),
        )
        .$if(filter.sessionId !== undefined, (query) => query.where('id', '=', filter.sessionId ?? ''))
        .executeTakeFirst();
      const count = closed(result.numUpdatedRows);
      if (count > 0) await endStreamsOfSignedOut(filter.accountNumber, filter.deviceId);
      return count;
    },

    /** Ids of the account's devices with a session that is open and not idle (used at or after `idleBefore`). */
    async signedInDevices(accountNumber: string, idleBefore: number): Promise<string[]> {
      const rows = await db
        .selectFrom('sessions')
        .select('device_id')
        .distinct()
        .where('account_number', '=', accountNumber)
        .where('closed_at', 'is', null)
        .where('last_used_at', '>=', idleBefore)
        .orderBy('device_id')
        .execute();
      return rows.map((row) => row.device_id);
    },
  };
}

export type SessionRepository = ReturnType<typeof createSessionRepository>;
