import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { LRUCache } from 'lru-cache';

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
