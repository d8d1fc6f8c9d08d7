import { type Kysely, type OnConflictBuilder, sql } from 'kysely';
import { defineStatement } from '../../core/db/statement.ts';
import type { AccountTables, ClientContentTables } from '../tables.ts';

/** What the bookmark statements read: the bookmarks, and the sessions a device's statements check. */
export type BookmarkDatabase = Pick<ClientContentTables, 'bookmarks'> & Pick<AccountTables, 'sessions'>;

export type BookmarkRow = ClientContentTables['bookmarks'];

/** A bookmark by its key, narrowed by account and version when they are not null. */
export interface BookmarkKey {
  userHash: string;
  contentId: number;
  accountNumber: string | null;
  version: string | null;
}

/** The device session a statement checks, and the last use before which it counts as idle. */
interface InSession {
  sessionId: string;
  idleBefore: number;
}

/** `column` equals `value`, or `value` is null (no narrowing): one statement serves both. */
const narrowedBy = (
  column: 'account_number' | 'version' | 'b.account_number' | 'b.version',
  value: string | null,
) => sql<boolean>`(cast(${value} as text) is null or ${sql.ref(column)} = ${value})`;

/** A save replaces a stored bookmark only when its position is not older than the stored one's. */
const unlessNewer = (conflict: OnConflictBuilder<BookmarkDatabase, 'bookmarks'>) =>
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

/**
 * A bookmark's columns of `row`, named one by one: the save's values, and on the hot paths the row a read
 * answers and the arguments of a device's save. Not a spread: V8 took its slow path for an object rest
 * (`{ session_closed_at, ...stored }`: 2.6 µs a read) and for a spread with more after it
 * (`{ ...row, sessionId }`: 3 µs a save).
 */
export function bookmarkColumns(row: BookmarkRow): BookmarkRow {
  return {
    user_hash: row.user_hash,
    content_id: row.content_id,
    account_number: row.account_number,
    version: row.version,
    offset_seconds: row.offset_seconds,
    position_at: row.position_at,
    device_id: row.device_id,
    device_class: row.device_class,
    updated_at: row.updated_at,
  };
}

export const bookmarkFind = defineStatement(
  'bookmark_find',
  (db: Kysely<BookmarkDatabase>, key: BookmarkKey) =>
    db
      .selectFrom('bookmarks')
      .selectAll()
      .where('user_hash', '=', key.userHash)
      .where('content_id', '=', key.contentId)
      .where(narrowedBy('account_number', key.accountNumber))
      .where(narrowedBy('version', key.version)),
);

/** One upsert that writes unless the stored position is newer; answers the row written, none when it was not. */
export const bookmarkSave = defineStatement(
  'bookmark_save',
  (db: Kysely<BookmarkDatabase>, row: BookmarkRow) =>
    db.insertInto('bookmarks').values(bookmarkColumns(row)).onConflict(unlessNewer).returningAll(),
);

/** PostgreSQL: the read of a device, its session's state beside the bookmark's columns (null: none). */
export const bookmarkFindInSession = defineStatement(
  'bookmark_find_in_session',
  (db: Kysely<BookmarkDatabase>, key: BookmarkKey & InSession) =>
    db
      .selectFrom('sessions as s')
      .leftJoin('bookmarks as b', (join) =>
        join
          .on('b.user_hash', '=', key.userHash)
          .on('b.content_id', '=', key.contentId)
          .on(narrowedBy('b.account_number', key.accountNumber))
          .on(narrowedBy('b.version', key.version)),
      )
      .select(['s.closed_at as session_closed_at', 's.last_used_at as session_last_used_at'])
      .select([
        'b.user_hash',
        'b.content_id',
        'b.account_number',
        'b.version',
        'b.offset_seconds',
        'b.position_at',
        'b.device_id',
        'b.device_class',
        'b.updated_at',
      ])
      .where('s.id', '=', key.sessionId),
  { dialects: ['postgres'], packed: true },
);

/** The insert's columns, in the order `savedValues` selects them. */
const savedColumns = [
  'user_hash',
  'content_id',
  'account_number',
  'version',
  'offset_seconds',
  'position_at',
  'device_id',
  'device_class',
  'updated_at',
] as const;

/** The save's values as typed parameters, for an insert whose rows come from a select over a session. */
const savedValues = (row: BookmarkRow) => [
  sql<string>`${row.user_hash}::text`.as('user_hash'),
  sql<number>`${row.content_id}::bigint`.as('content_id'),
  sql<string | null>`${row.account_number}::text`.as('account_number'),
  sql<string | null>`${row.version}::text`.as('version'),
  sql<number>`${row.offset_seconds}::integer`.as('offset_seconds'),
  sql<number>`${row.position_at}::bigint`.as('position_at'),
  sql<string>`${row.device_id}::text`.as('device_id'),
  sql<string>`${row.device_class}::text`.as('device_class'),
  sql<number>`${row.updated_at}::bigint`.as('updated_at'),
];

/**
 * PostgreSQL: the save of a device. The insert's values come from a select over its session, so nothing is
 * written unless the session is open and not idle; answers the session's state and whether it wrote (a
 * written row is the row sent: no copy of it comes back).
 */
export const bookmarkSaveInSession = defineStatement(
  'bookmark_save_in_session',
  (db: Kysely<BookmarkDatabase>, row: BookmarkRow & InSession) =>
    db
      .with('s', (qb) =>
        qb.selectFrom('sessions').select(['closed_at', 'last_used_at']).where('id', '=', row.sessionId),
      )
      .with('w', (qb) =>
        qb
          .insertInto('bookmarks')
          .columns(savedColumns)
          .expression(
            qb
              .selectFrom('s')
              .select(savedValues(row))
              .where('s.closed_at', 'is', null)
              .where('s.last_used_at', '>=', row.idleBefore),
          )
          .onConflict(unlessNewer)
          .returning(sql<boolean>`true`.as('written')),
      )
      .selectFrom('s')
      .leftJoin('w', (join) => join.onTrue())
      .select(['s.closed_at as session_closed_at', 's.last_used_at as session_last_used_at', 'w.written']),
  { dialects: ['postgres'] },
);

/**
 * PostgreSQL: the save of a device whose session this process saw in use within the minute (SessionGate's
 * `bound`): the same insert over the session, written only while it is open and not idle, without reading
 * the session's state back (there is no use to record). A row when it wrote; none when the session was
 * refused or the stored position is newer, which a read of the session then tells apart. 15% less of the
 * database's CPU than `bookmark_save_in_session` (docs/decisions-performance.md).
 */
export const bookmarkSaveInOpenSession = defineStatement(
  'bookmark_save_in_open_session',
  (db: Kysely<BookmarkDatabase>, row: BookmarkRow & InSession) =>
    db
      .insertInto('bookmarks')
      .columns(savedColumns)
      .expression(
        db
          .selectFrom('sessions')
          .select(savedValues(row))
          .where('id', '=', row.sessionId)
          .where('closed_at', 'is', null)
          .where('last_used_at', '>=', row.idleBefore),
      )
      .onConflict(unlessNewer)
      .returning(sql<boolean>`true`.as('written')),
  { dialects: ['postgres'] },
);

/** Every bookmark statement, for the snapshot of what each dialect runs (queries/). */
export const bookmarkStatements = [
  bookmarkFind,
  bookmarkSave,
  bookmarkFindInSession,
  bookmarkSaveInSession,
  bookmarkSaveInOpenSession,
];
