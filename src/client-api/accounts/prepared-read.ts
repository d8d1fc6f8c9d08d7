import type SQLite from 'better-sqlite3';
import type { Database } from '../../core/db/database.ts';

/** How a repository runs its hot-path reads. */
export interface RepositoryOptions {
  /** On SQLite, hot-path reads run as prepared statements (the default); false: through Kysely only. */
  prepared?: boolean;
}

/**
 * A hot-path read by one key, in two forms that answer the same: on SQLite the prepared statement
 * `prepare` makes (no query compilation per request), otherwise the Kysely query. While a Kysely
 * transaction holds the connection (another request's), a statement run on it would join that
 * transaction, so those moments go through Kysely as well.
 */
export function preparedRead<R>(
  database: Database,
  options: RepositoryOptions,
  prepare: (sqlite: SQLite.Database) => (key: string) => R,
  kysely: (key: string) => Promise<R>,
): (key: string) => Promise<R> {
  const sqlite = options.prepared === false ? undefined : database.sqlite;
  if (sqlite === undefined) return kysely;
  const statement = prepare(sqlite);
  return async (key) => (sqlite.inTransaction ? kysely(key) : statement(key));
}
