import type { Kysely, OnConflictBuilder } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { StatementRunner } from '../../core/db/pipeline.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import { hotStatements, namedStatement, type RepositoryOptions } from '../accounts/prepared-read.ts';
import type { AccountTables } from '../accounts/tables.ts';
import type { ClientContentTables } from '../content-tables.ts';
import { type FoldedBookmarks, foldedKysely, foldedPostgres } from './folded-repository.ts';

export type BookmarkTables = Pick<ClientContentTables, 'bookmarks'>;

/** What the bookmark statements read: the bookmarks, and the sessions a folded statement checks. */
export type BookmarkDatabase = CoreTables & BookmarkTables & Pick<AccountTables, 'sessions'>;

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
  /**
   * PostgreSQL only: the same read and save with the device session's check folded into the statement
   * (one round trip per authenticated request; see SessionCheck in auth/principal.ts).
   */
  folded?: FoldedBookmarks;
}

export const bookmarkColumns =
  'user_hash, content_id, account_number, version, offset_seconds, position_at, device_id, device_class, updated_at';

/**
 * Bookmarks are the benchmarked hot path: on SQLite they run as prepared statements on the raw
 * connection (no query compilation per request); on PostgreSQL as named statements, the device's
 * session check folded in. With `prepared: false`, every form through Kysely (the twins a test compares).
 */
export function createBookmarkRepository(
  database: Database,
  options: RepositoryOptions = {},
): BookmarkRepository {
  const db = database.db.withTables<BookmarkTables & Pick<AccountTables, 'sessions'>>();
  const kysely = kyselyRepository(db);
  if (database.dialect === 'postgres') {
    const statements = hotStatements(database, options);
    if (statements === undefined) return { ...kysely, folded: foldedKysely(db) };
    return { ...postgresRepository(statements), folded: foldedPostgres(statements) };
  }
  if (database.sqlite === undefined || options.prepared === false) return kysely;
  return sqliteRepository(database.sqlite, kysely);
}

/** The find's and the upsert's conditions, shared by the raw forms of both dialects. */
const upsertTail = `on conflict (user_hash, content_id) do update set
       account_number = excluded.account_number, version = excluded.version,
       offset_seconds = excluded.offset_seconds, position_at = excluded.position_at,
       device_id = excluded.device_id, device_class = excluded.device_class, updated_at = excluded.updated_at
     where bookmarks.position_at <= excluded.position_at`;

/** Named statements (Database.statements): parsed once per connection, one round trip each. */
function postgresRepository(statements: StatementRunner): Omit<BookmarkRepository, 'folded'> {
  const select = namedStatement<BookmarkRow>(
    statements,
    'bookmark_find',
    `select ${bookmarkColumns} from bookmarks where user_hash = $1 and content_id = $2
       and ($3::text is null or account_number = $3) and ($4::text is null or version = $4)`,
  );
  const upsert = namedStatement<BookmarkRow>(
    statements,
    'bookmark_save',
    `insert into bookmarks (${bookmarkColumns}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ${upsertTail}
     returning ${bookmarkColumns}`,
  );
  return {
    async find(filter) {
      const rows = await select([
        filter.userHash,
        filter.contentId,
        filter.accountNumber ?? null,
        filter.version ?? null,
      ]);
      return rows[0];
    },
    async saveUnlessStale(row) {
      return (await upsert(bookmarkValues(row)))[0];
    },
  };
}

/** A row's values in `bookmarkColumns` order. */
export function bookmarkValues(row: BookmarkRow): unknown[] {
  return [
    row.user_hash,
    row.content_id,
    row.account_number,
    row.version,
    row.offset_seconds,
    row.position_at,
    row.device_id,
    row.device_class,
    row.updated_at,
  ];
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
    `select ${bookmarkColumns} from bookmarks where user_hash = @userHash and content_id = @contentId
       and (@accountNumber is null or account_number = @accountNumber) and (@version is null or version = @version)`,
  );
  const upsert = connection.prepare<BookmarkRow, BookmarkRow>(
    `insert into bookmarks (${bookmarkColumns})
       values (@user_hash, @content_id, @account_number, @version, @offset_seconds, @position_at, @device_id, @device_class, @updated_at)
     ${upsertTail}
     returning ${bookmarkColumns}`,
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

function kyselyRepository(db: Kysely<BookmarkDatabase>): Omit<BookmarkRepository, 'folded'> {
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
        .onConflict(upsertUnlessNewer)
        .returningAll()
        .executeTakeFirst();
    },
  };
}

/** The Kysely form of `upsertTail`. */
export const upsertUnlessNewer = (conflict: OnConflictBuilder<BookmarkDatabase, 'bookmarks'>) =>
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
    .where('bookmarks.position_at', '<=', (eb) => eb.ref('excluded.position_at'));
