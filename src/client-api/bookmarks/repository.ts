import type { Database } from '../../core/db/database.ts';
import { prepared } from '../../core/db/prepared.ts';
import type { ClientContentTables } from '../tables.ts';

export type BookmarkRow = ClientContentTables['bookmarks'];

export interface BookmarkFilter {
  userHash: string;
  contentId: number;
  accountNumber?: string;
  version?: string;
}

/** Bookmarks, read and saved by key. Whose session may reach them is the guard's business (SessionGate). */
export interface BookmarkRepository {
  find(filter: BookmarkFilter): Promise<BookmarkRow | undefined>;
  /** Writes unless the stored position is newer; answers the row written, or undefined when it was not. */
  saveUnlessStale(row: BookmarkRow): Promise<BookmarkRow | undefined>;
  /** A user's bookmarks, the most recent position first (of one content item, with `contentId`). */
  recent(userHash: string, limit: number, contentId?: number): Promise<BookmarkRow[]>;
}

export function createBookmarkRepository(database: Database): BookmarkRepository {
  const db = database.db.withTables<ClientContentTables>();

  // The read and the save of a player's position: prepared once (core/db/prepared.ts), they run on every
  // request of a user's hot paths.
  const byKey = prepared<{ userHash: string; contentId: number }, BookmarkRow>(database, (arg) =>
    db
      .selectFrom('bookmarks')
      .selectAll()
      .where('user_hash', '=', arg('userHash'))
      .where('content_id', '=', arg('contentId')),
  );
  const upsertUnlessStale = prepared<BookmarkRow, BookmarkRow>(database, (arg) =>
    db
      .insertInto('bookmarks')
      .values({
        user_hash: arg('user_hash'),
        content_id: arg('content_id'),
        account_number: arg('account_number'),
        version: arg('version'),
        offset_seconds: arg('offset_seconds'),
        position_at: arg('position_at'),
        device_id: arg('device_id'),
        device_class: arg('device_class'),
        updated_at: arg('updated_at'),
      })
      .onConflict((conflict) =>
        conflict
          .columns(['user_hash', 'content_id'])
          .doUpdateSet((eb) => ({
            account_number: eb.ref('excluded.account_number'),
            version: eb.ref('excluded.version'),
            offset_seconds: eb.ref('excluded.offset_seconds'),
            position_at: eb.ref('excluded.position_at'),
            device_id: eb.ref('excluded.device_id'),
            device_class: eb.ref('excluded.device_class'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where('bookmarks.position_at', '<=', (eb) => eb.ref('excluded.position_at')),
      )
      .returningAll(),
  );

  return {
    find(filter) {
      if (filter.accountNumber === undefined && filter.version === undefined) return byKey.first(filter);
      return db
        .selectFrom('bookmarks')
        .selectAll()
        .where('user_hash', '=', filter.userHash)
        .where('content_id', '=', filter.contentId)
        .$if(filter.accountNumber !== undefined, (query) =>
          query.where('account_number', '=', filter.accountNumber ?? ''),
        )
        .$if(filter.version !== undefined, (query) => query.where('version', '=', filter.version ?? ''))
        .executeTakeFirst();
    },

    saveUnlessStale: (row) => upsertUnlessStale.first(row),

    recent(userHash, limit, contentId) {
      return db
        .selectFrom('bookmarks')
        .selectAll()
        .where('user_hash', '=', userHash)
        .$if(contentId !== undefined, (query) => query.where('content_id', '=', contentId ?? 0))
        .orderBy('position_at', 'desc')
        .orderBy('content_id')
        .limit(limit)
        .execute();
    },
  };
}
