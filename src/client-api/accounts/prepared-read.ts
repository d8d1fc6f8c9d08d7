import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import type { Database } from '../../core/db/database.ts';
import type { StatementRunner } from '../../core/db/pipeline.ts';

/** How a repository runs its hot-path statements. */
export interface RepositoryOptions {
  /**
   * Hot-path statements run as prepared statements (the default): on SQLite on the raw connection, on
   * PostgreSQL as named statements; false: through Kysely only (the twin a test compares them with).
   */
  prepared?: boolean;
}

/**
 * A hot-path read by one key, in two forms that answer the same: on SQLite the prepared statement
 * `prepare` makes (no query compilation per request), on PostgreSQL the named statement `postgres`
 * makes when given, otherwise the Kysely query. While a Kysely transaction holds the SQLite connection
 * (another request's), a statement run on it would join that transaction, so those moments go through
 * Kysely as well.
 */
export function preparedRead<R>(
  database: Database,
  options: RepositoryOptions,
  prepare: (sqlite: SQLite.Database) => (key: string) => R,
  kysely: (key: string) => Promise<R>,
  postgres?: (statements: StatementRunner) => (key: string) => Promise<R>,
): (key: string) => Promise<R> {
  if (options.prepared === false) return kysely;
  if (database.statements !== undefined && postgres !== undefined) return postgres(database.statements);
  const sqlite = database.sqlite;
  if (sqlite === undefined) return kysely;
  const statement = prepare(sqlite);
  return async (key) => (sqlite.inTransaction ? kysely(key) : statement(key));
}

/** Where `database` runs its hot paths' named statements (PostgreSQL, `prepared` not false): see Database.statements. */
export function hotStatements(database: Database, options: RepositoryOptions): StatementRunner | undefined {
  return options.prepared === false ? undefined : database.statements;
}

/**
 * A named PostgreSQL statement: each connection parses and plans it once, then only binds and
 * executes it (one round trip, no query text compiled per request). Answers the rows.
 */
export function namedStatement<Row>(
  statements: StatementRunner,
  name: string,
  text: string,
): (values: unknown[]) => Promise<Row[]> {
  return async (values) => {
    const result = await statements.query<pg.QueryResultRow>({ name, text, values });
    return result.rows as Row[];
  };
}

/**
 * A named statement whose rows are one column, `json_build_array(…)` of `columns` (name, SQL expression),
 * read back as objects keyed by the names: node-postgres describes every column of every execution and
 * builds each row from a dictionary of names (~1.3 µs per column in the profile), so one JSON column
 * costs it one field. `from` is the rest of the statement (from, joins, where, order). Numbers come back
 * as JSON numbers: int8 columns hold values within 2^53, as everywhere (database.ts).
 */
export function packedStatement<Row extends Record<string, unknown>>(
  statements: StatementRunner,
  name: string,
  columns: ReadonlyArray<readonly [keyof Row & string, string]>,
  from: string,
): (values: unknown[]) => Promise<Row[]> {
  const statement = namedStatement<{ r: unknown[] }>(
    statements,
    name,
    `select json_build_array(${columns.map(([, expression]) => expression).join(', ')}) as r ${from}`,
  );
  const unpack = ({ r }: { r: unknown[] }): Row => {
    const row: Record<string, unknown> = {};
    columns.forEach(([column], index) => {
      row[column] = r[index];
    });
    return row as Row;
  };
  return async (values) => (await statement(values)).map(unpack);
}
