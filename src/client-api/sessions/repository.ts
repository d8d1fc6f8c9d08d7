import type { Database } from '../../core/db/database.ts';
import type { AccountTables } from '../accounts/tables.ts';

export type SessionRow = AccountTables['sessions'];

/** What the access-token check reads: the one indexed read per authenticated request. */
export interface SessionState {
  closed_at: number | null;
  last_used_at: number;
}

export interface SessionFilter {
  accountNumber: string;
  deviceId?: string;
  /** Undefined addresses every qspVersion (`All`). */
  qspVersion?: string;
}

export function createSessionRepository(database: Database) {
  const db = database.db.withTables<AccountTables>();
  // The hot path runs as a prepared statement on SQLite, unless a Kysely transaction holds the connection.
  const sqlite = database.sqlite;
  const selectState = sqlite?.prepare<[string], SessionState>(
    'select closed_at, last_used_at from sessions where id = ?',
  );

  return {
    async insert(row: SessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },

    async find(id: string): Promise<SessionRow | undefined> {
      return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async state(id: string): Promise<SessionState | undefined> {
      if (selectState && sqlite && !sqlite.inTransaction) return selectState.get(id);
      return db
        .selectFrom('sessions')
        .select(['closed_at', 'last_used_at'])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', id).execute();
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

    /** Closes the open sessions that match; answers how many were closed. */
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
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async closeById(id: string, at: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set({ closed_at: at })
        .where('id', '=', id)
        .where('closed_at', 'is', null)
        .execute();
    },
  };
}

export type SessionRepository = ReturnType<typeof createSessionRepository>;
