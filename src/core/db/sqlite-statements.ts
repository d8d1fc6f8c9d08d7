import type SQLite from 'better-sqlite3';
import type { CompiledQuery, Kysely, SqliteDatabase } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { StoreStatement } from './prepared.ts';

/** Most statement texts kept prepared per store (a few hundred distinct texts in all the product issues). */
const PREPARED_TEXTS = 1000;

/**
 * The store's connection as Kysely's SQLite driver uses it (`prepare`, `close`), each statement text
 * prepared once and then reused, the embedded store's counterpart of PostgreSQL's named statements
 * (pipelined-driver.ts): Kysely's driver prepares at every call, and SQLite parses and plans the text at
 * every prepare, most of a hot read's database time. A statement a stream is still iterating is busy: a
 * statement of its own is prepared beside it. SQLite prepares a kept statement again by itself after a
 * schema change (a migration), so a kept one never runs against a table that changed under it.
 */
export function preparedOnce(connection: SQLite.Database): SqliteDatabase {
  const prepared = new LRUCache<string, SQLite.Statement>({ max: PREPARED_TEXTS });
  return {
    prepare(text: string) {
      const kept = prepared.get(text);
      if (kept !== undefined && !kept.busy) return kept;
      const statement = connection.prepare(text);
      if (kept === undefined) prepared.set(text, statement);
      return statement;
    },
    close() {
      prepared.clear();
      connection.close();
    },
  };
}

/**
 * A prepared query's statement on SQLite (prepared.ts): run on the connection at once, or, while a
 * transaction holds the connection (Kysely's, between its statements), through Kysely, which waits for it
 * to end: run at once, the statement would join that transaction and share its rollback.
 */
export function sqliteStatement(
  connection: SQLite.Database,
  kysely: Pick<Kysely<unknown>, 'executeQuery'>,
  compiled: CompiledQuery,
  counted: () => void,
): StoreStatement {
  let statement: SQLite.Statement | undefined;
  const run = (values: unknown[], one: boolean): Promise<unknown> => {
    if (connection.inTransaction) {
      const rows = kysely
        .executeQuery<unknown>({ ...compiled, parameters: values })
        .then((result) => result.rows);
      return one ? rows.then((found) => found[0]) : rows;
    }
    try {
      // Prepared at its first run, not before: a store opened only to migrate prepares nothing of it.
      statement ??= connection.prepare(compiled.sql);
      counted();
      if (statement.reader) return Promise.resolve(one ? statement.get(values) : statement.all(values));
      statement.run(values);
      return Promise.resolve(one ? undefined : []);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return { rows: (values) => run(values, false) as Promise<unknown[]>, first: (values) => run(values, true) };
}
