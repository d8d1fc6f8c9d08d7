import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { namedStatement } from '../accounts/prepared-read.ts';
import { foldedSessionState, type SessionState } from '../sessions/repository.ts';
import {
  type BookmarkDatabase,
  type BookmarkFilter,
  type BookmarkRow,
  bookmarkColumns,
  bookmarkValues,
  upsertUnlessNewer,
} from './repository.ts';

/** Which session a folded statement checks, and the bound under which it counts as idle. */
export interface FoldedSession {
  sessionId: string;
  /** Sessions last used before this (epoch ms) are idle: a folded write does not write for them. */
  idleBefore: number;
}

/**
 * The bookmark read and save of a device token, its session's check folded into the statement: one round
 * trip answers the session's state (undefined: no such session) with the data. The save writes only
 * while the session is open and not idle, so a closed session's token never writes.
 */
export interface FoldedBookmarks {
  find(
    session: FoldedSession,
    filter: BookmarkFilter,
  ): Promise<{ session: SessionState | undefined; row: BookmarkRow | undefined }>;
  saveUnlessStale(
    session: FoldedSession,
    row: BookmarkRow,
  ): Promise<{ session: SessionState | undefined; written: BookmarkRow | undefined }>;
}

/** A folded statement's row: the session's two columns, then the bookmark's (all null when none). */
type FoldedRow = { session_closed_at: number | null; session_last_used_at: number | null } & {
  [column in keyof BookmarkRow]: BookmarkRow[column] | null;
};

const bookmarkOf = (row: FoldedRow | undefined): BookmarkRow | undefined => {
  if (row?.user_hash == null || row.content_id === null || row.offset_seconds === null) return undefined;
  if (row.position_at === null || row.updated_at === null) return undefined;
  if (row.device_id === null || row.device_class === null) return undefined;
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
};

const prefixed = (table: string) =>
  bookmarkColumns
    .split(',')
    .map((column) => `${table}.${column.trim()}`)
    .join(', ');

/** The raw forms: named statements, parsed once per pooled connection. */
export function foldedPostgres(pool: pg.Pool): FoldedBookmarks {
  const read = namedStatement<FoldedRow>(
    pool,
    'bookmark_find_in_session',
    `select s.closed_at as session_closed_at, s.last_used_at as session_last_used_at, ${prefixed('b')}
       from sessions s
       left join bookmarks b on b.user_hash = $2 and b.content_id = $3
         and ($4::text is null or b.account_number = $4) and ($5::text is null or b.version = $5)
      where s.id = $1`,
  );
  // The insert's values come from a select over the session, so nothing is written unless it is usable.
  const save = namedStatement<FoldedRow>(
    pool,
    'bookmark_save_in_session',
    `with s as (select closed_at, last_used_at from sessions where id = $1),
     w as (
       insert into bookmarks (${bookmarkColumns})
       select $2::text, $3::bigint, $4::text, $5::text, $6::integer, $7::bigint, $8::text, $9::text, $10::bigint
         from s where s.closed_at is null and s.last_used_at >= $11
       on conflict (user_hash, content_id) do update set
         account_number = excluded.account_number, version = excluded.version,
         offset_seconds = excluded.offset_seconds, position_at = excluded.position_at,
         device_id = excluded.device_id, device_class = excluded.device_class, updated_at = excluded.updated_at
       where bookmarks.position_at <= excluded.position_at
       returning ${bookmarkColumns}
     )
     select s.closed_at as session_closed_at, s.last_used_at as session_last_used_at, ${prefixed('w')}
       from s left join w on true`,
  );
  return {
    async find(session, filter) {
      const [row] = await read([
        session.sessionId,
        filter.userHash,
        filter.contentId,
        filter.accountNumber ?? null,
        filter.version ?? null,
      ]);
      return { session: foldedSessionState(row), row: bookmarkOf(row) };
    },
    async saveUnlessStale(session, row) {
      const [result] = await save([session.sessionId, ...bookmarkValues(row), session.idleBefore]);
      return { session: foldedSessionState(result), written: bookmarkOf(result) };
    },
  };
}

/** The Kysely twins of the raw forms (PostgreSQL: a data-modifying WITH). */
export function foldedKysely(db: Kysely<BookmarkDatabase>): FoldedBookmarks {
  return {
    async find(session, filter) {
      const row = await db
        .selectFrom('sessions as s')
        .leftJoin('bookmarks as b', (join) => {
          let on = join.on('b.user_hash', '=', filter.userHash).on('b.content_id', '=', filter.contentId);
          if (filter.accountNumber !== undefined) on = on.on('b.account_number', '=', filter.accountNumber);
          if (filter.version !== undefined) on = on.on('b.version', '=', filter.version);
          return on;
        })
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
        .where('s.id', '=', session.sessionId)
        .executeTakeFirst();
      return { session: foldedSessionState(row), row: bookmarkOf(row) };
    },

    async saveUnlessStale(session, row) {
      const result = await db
        .with('s', (qb) =>
          qb.selectFrom('sessions').select(['closed_at', 'last_used_at']).where('id', '=', session.sessionId),
        )
        .with('w', (qb) =>
          qb
            .insertInto('bookmarks')
            .columns([
              'user_hash',
              'content_id',
              'account_number',
              'version',
              'offset_seconds',
              'position_at',
              'device_id',
              'device_class',
              'updated_at',
            ])
            .expression(
              qb
                .selectFrom('s')
                .select([
                  sql<string>`${row.user_hash}::text`.as('user_hash'),
                  sql<number>`${row.content_id}::bigint`.as('content_id'),
                  sql<string | null>`${row.account_number}::text`.as('account_number'),
                  sql<string | null>`${row.version}::text`.as('version'),
                  sql<number>`${row.offset_seconds}::integer`.as('offset_seconds'),
                  sql<number>`${row.position_at}::bigint`.as('position_at'),
                  sql<string>`${row.device_id}::text`.as('device_id'),
                  sql<string>`${row.device_class}::text`.as('device_class'),
                  sql<number>`${row.updated_at}::bigint`.as('updated_at'),
                ])
                .where('s.closed_at', 'is', null)
                .where('s.last_used_at', '>=', session.idleBefore),
            )
            .onConflict(upsertUnlessNewer)
            .returningAll(),
        )
        .selectFrom('s')
        .leftJoin('w', (join) => join.onTrue())
        .select(['s.closed_at as session_closed_at', 's.last_used_at as session_last_used_at'])
        .select([
          'w.user_hash',
          'w.content_id',
          'w.account_number',
          'w.version',
          'w.offset_seconds',
          'w.position_at',
          'w.device_id',
          'w.device_class',
          'w.updated_at',
        ])
        .executeTakeFirst();
      return { session: foldedSessionState(result), written: bookmarkOf(result) };
    },
  };
}
