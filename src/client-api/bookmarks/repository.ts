import type { Database } from '../../core/db/database.ts';
import { bindStatement } from '../../core/db/statement.ts';
import type { SessionGate, SessionRef } from '../auth/session-gate.ts';
import { sessionStateOf } from '../sessions/repository.ts';
import type { ClientContentTables } from '../tables.ts';
import {
  type BookmarkKey,
  type BookmarkRow,
  bookmarkColumns,
  bookmarkFind,
  bookmarkFindInSession,
  bookmarkSave,
  bookmarkSaveInOpenSession,
  bookmarkSaveInSession,
} from './statements.ts';

export type { BookmarkRow };

export interface BookmarkFilter {
  userHash: string;
  contentId: number;
  accountNumber?: string;
  version?: string;
}

/**
 * Bookmarks, read and saved by key. With `as`, the caller is a device token: its session must be open and
 * not idle, or the call is refused (401 TOKEN_INVALID) and nothing is written. On PostgreSQL the session's
 * state is read in the same statement as the data (one round trip per request); a save in a session this
 * process saw in use within the minute only checks it there (nothing to read back unless nothing was
 * written). On SQLite it is checked first, from memory (see SessionGate).
 */
export interface BookmarkRepository {
  find(filter: BookmarkFilter, as?: SessionRef): Promise<BookmarkRow | undefined>;
  /** Writes unless the stored position is newer; answers the row written, or undefined when it was not. */
  saveUnlessStale(row: BookmarkRow, as?: SessionRef): Promise<BookmarkRow | undefined>;
  /** A user's bookmarks, the most recent position first (of one content item, with `contentId`). */
  recent(userHash: string, limit: number, contentId?: number): Promise<BookmarkRow[]>;
}

const keyOf = (filter: BookmarkFilter): BookmarkKey => ({
  userHash: filter.userHash,
  contentId: filter.contentId,
  accountNumber: filter.accountNumber ?? null,
  version: filter.version ?? null,
});

export function createBookmarkRepository(database: Database, gate: SessionGate): BookmarkRepository {
  const find = bindStatement(database, bookmarkFind);
  const save = bindStatement(database, bookmarkSave);
  const inSession =
    database.dialect === 'postgres'
      ? {
          find: bindStatement(database, bookmarkFindInSession),
          save: bindStatement(database, bookmarkSaveInSession),
          saveInOpen: bindStatement(database, bookmarkSaveInOpenSession),
        }
      : undefined;

  return {
    async find(filter, as) {
      const key = keyOf(filter);
      if (as === undefined || inSession === undefined) {
        if (as !== undefined) await gate.check(as);
        return (await find(key))[0];
      }
      const { now, idleBefore } = gate.bound();
      const [row] = await inSession.find({
        userHash: key.userHash,
        contentId: key.contentId,
        accountNumber: key.accountNumber,
        version: key.version,
        sessionId: as.sessionId,
        idleBefore,
      });
      await gate.accept(as, sessionStateOf(row), now);
      if (row === undefined || row.offset_seconds === null) return undefined;
      // A joined bookmark's columns are all set when its offset is: they are NOT NULL in the table.
      return bookmarkColumns(row as BookmarkRow);
    },

    recent(userHash, limit, contentId) {
      return database.db
        .withTables<ClientContentTables>()
        .selectFrom('bookmarks')
        .selectAll()
        .where('user_hash', '=', userHash)
        .$if(contentId !== undefined, (query) => query.where('content_id', '=', contentId ?? 0))
        .orderBy('position_at', 'desc')
        .orderBy('content_id')
        .limit(limit)
        .execute();
    },

    async saveUnlessStale(row, as) {
      if (as === undefined || inSession === undefined) {
        if (as !== undefined) await gate.check(as);
        return (await save(row))[0];
      }
      const { now, idleBefore, recent } = gate.bound(as);
      const args = bookmarkColumns(row) as BookmarkRow & { sessionId: string; idleBefore: number };
      args.sessionId = as.sessionId;
      args.idleBefore = idleBefore;
      if (recent) {
        if ((await inSession.saveInOpen(args)).length > 0) return row;
        // Nothing written: the session's state tells a refusal (closed, idle, gone) from a newer stored position.
        await gate.check(as);
        return undefined;
      }
      const [result] = await inSession.save(args);
      await gate.accept(as, sessionStateOf(result), now);
      return result?.written ? row : undefined;
    },
  };
}
