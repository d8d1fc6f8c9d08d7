import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import type { ClientContentTables } from '../content-tables.ts';

export type BookmarkTables = Pick<ClientContentTables, 'bookmarks'>;

export type BookmarkRow = BookmarkTables['bookmarks'];

export interface BookmarkFilter {
  userHash: string;
  contentId: number;
  accountNumber?: string;
  version?: string;
}

export interface BookmarkRepository {
  /** One primary-key read, narrowed by account and version when given. */
  find(filter: BookmarkFilter): Promise<BookmarkRow | undefined>;
  /**
   * One upsert that only replaces a stored bookmark whose position is not newer than this one; answers
   * the written row, or undefined when the stored one was newer (nothing written).
   */
  saveUnlessStale(row: BookmarkRow): Promise<BookmarkRow | undefined>;
}

const columns =
  'user_hash, content_id, account_number, version, offset_seconds, position_at, device_id, device_class, updated_at';

/**
 * Bookmarks are the benchmarked hot path: on SQLite they run as prepared statements on the raw
 * connection (no query compilation per request); on PostgreSQL through Kysely.
 */
export function createBookmarkRepository(database: Database): BookmarkRepository {
  const kysely = kyselyRepository(database.db.withTables<BookmarkTables>());
  return database.sqlite ? sqliteRepository(database.sqlite, kysely) : kysely;
}

/**
 * The raw connection is the one Kysely uses: while a Kysely transaction is open on it (another
 * request's), a statement run here would join that transaction, so those moments go through Kysely,
 * which waits for the connection.
 */
function sqliteRepository(
  connection: NonNullable<Database['sqlite']>,
  fallback: BookmarkRepository,
): BookmarkRepository {
  const select = connection.prepare<
    [{ userHash: string; contentId: number; accountNumber: string | null; version: string | null }],
    BookmarkRow
  >(
    `select ${columns} from bookmarks where user_hash = @userHash and content_id = @contentId
       and (@accountNumber is null or account_number = @accountNumber) and (@version is null or version = @version)`,
  );
  const upsert = connection.prepare<BookmarkRow, BookmarkRow>(
    `insert into bookmarks (${columns})
       values (@user_hash, @content_id, @account_number, @version, @offset_seconds, @position_at, @device_id, @device_class, @updated_at)
     on conflict (user_hash, content_id) do update set
       account_number = excluded.account_number, version = excluded.version,
       offset_seconds = excluded.offset_seconds, position_at = excluded.position_at,
       device_id = excluded.device_id, device_class = excluded.device_class, updated_at = excluded.updated_at
     where bookmarks.position_at <= excluded.position_at
     returning ${columns}`,
  );
  return {
    async find(filter) {
      if (connection.inTransaction) return fallback.find(filter);
      return select.get({
        userHash: filter.userHash,
        contentId: filter.contentId,
        accountNumber: filter.accountNumber ?? null,
        version: filter.version ?? null,
      });
    },
    async saveUnlessStale(row) {
      if (connection.inTransaction) return fallback.saveUnlessStale(row);
      return upsert.get(row);
    },
  };
}

function kyselyRepository(db: Kysely<CoreTables & BookmarkTables>): BookmarkRepository {
  return {
    find(filter) {
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
    saveUnlessStale(row) {
      return db
        .insertInto('bookmarks')
        .values(row)
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
        .returningAll()
        .executeTakeFirst();
    },
  };
}
