import { type Kysely, sql } from 'kysely';
import type { StatementRunner } from '../../core/db/pipeline.ts';
import { namedStatement, packedStatement } from '../accounts/prepared-read.ts';
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

/** The folded read's row: the session's two columns, then the bookmark's (null when there is none). */
type FoldedReadRow = { session_closed_at: number | null; session_last_used_at: number | null } & {
  [column in Exclude<keyof BookmarkRow, 'user_hash' | 'content_id'>]: BookmarkRow[column] | null;
};

/**
 * The folded save's row: the session's two columns and whether the row was written. A written row is the
 * row sent (every column is set from it), so the statement returns no copy of it: each column returned
 * costs the driver a field description and a parse per request.
 */
type FoldedSaveRow = {
  session_closed_at: number | null;
  session_last_used_at: number | null;
  written: boolean | null;
};

const bookmarkOf = (filter: BookmarkFilter, row: FoldedReadRow | undefined): BookmarkRow | undefined => {
  if (row === undefined || row.offset_seconds === null || row.position_at === null) return undefined;
  if (row.updated_at === null || row.device_id === null || row.device_class === null) return undefined;
  return {
    user_hash: filter.userHash,
    content_id: filter.contentId,
    account_number: row.account_number,
    version: row.version,
    offset_seconds: row.offset_seconds,
    position_at: row.position_at,
    device_id: row.device_id,
    device_class: row.device_class,
    updated_at: row.updated_at,
  };
};

const writtenOf = (sent: BookmarkRow, row: FoldedSaveRow | undefined): BookmarkRow | undefined =>
  row?.written ? sent : undefined;

/** The raw forms: named statements, parsed once per pooled connection. */
export function foldedPostgres(statements: StatementRunner): FoldedBookmarks {
  // The bookmark columns the read returns: the key is the filter's. (Computed here, not at load:
  // repository.ts, which defines bookmarkColumns, imports this module.)
  const readColumns = bookmarkColumns
    .split(',')
    .map((column) => column.trim())
    .filter((column) => column !== 'user_hash' && column !== 'content_id');
  const read = packedStatement<FoldedReadRow>(
    statements,
    'bookmark_find_in_session',
    [
      ['session_closed_at', 's.closed_at'],
      ['session_last_used_at', 's.last_used_at'],
      ...readColumns.map((column) => [column as keyof FoldedReadRow & string, `b.${column}`] as const),
    ],
    `from sessions s
       left join bookmarks b on b.user_hash = $2 and b.content_id = $3
         and ($4::text is null or b.account_number = $4) and ($5::text is null or b.version = $5)
      where s.id = $1`,
  );
  // The insert's values come from a select over the session, so nothing is written unless it is usable.
  const save = namedStatement<FoldedSaveRow>(
    statements,
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
       returning true as written
     )
     select s.closed_at as session_closed_at, s.last_used_at as session_last_used_at, w.written
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
      return { session: foldedSessionState(row), row: bookmarkOf(filter, row) };
    },
    async saveUnlessStale(session, row) {
      const [result] = await save([session.sessionId, ...bookmarkValues(row), session.idleBefore]);
      return { session: foldedSessionState(result), written: writtenOf(row, result) };
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
      return { session: foldedSessionState(row), row: bookmarkOf(filter, row) };
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
            .returning(sql<boolean>`true`.as('written')),
        )
        .selectFrom('s')
        .leftJoin('w', (join) => join.onTrue())
        .select(['s.closed_at as session_closed_at', 's.last_used_at as session_last_used_at', 'w.written'])
        .executeTakeFirst();
      return { session: foldedSessionState(result), written: writtenOf(row, result) };
    },
  };
}
