import { sql } from 'kysely';
import type { Database, Dialect } from './database.ts';
import type { ColumnKind, SchemaColumns } from './table-columns.ts';

/**
 * Compares the tables a migrated store has with the column descriptions the table types are derived
 * from, so a migration and a type that disagree fail a test rather than a query in production.
 */

/** How each dialect's catalogue names a kind: SQLite keeps the declared type, PostgreSQL its own name. */
export const catalogueTypes: Record<Dialect, Record<ColumnKind, string>> = {
  sqlite: { text: 'text', integer: 'integer', bigint: 'bigint' },
  postgres: { text: 'text', integer: 'int4', bigint: 'int8' },
};

export interface MigratedColumn {
  dataType: string;
  nullable: boolean;
}

/** Table name → column name → what the store declares; Kysely's own migration tables left out. */
export type MigratedTables = Map<string, Map<string, MigratedColumn>>;

export async function readMigratedTables(database: Database): Promise<MigratedTables> {
  const tables = await database.db.introspection.getTables();
  const migrated: MigratedTables = new Map();
  for (const table of tables) {
    if (table.isView || (table.schema !== undefined && table.schema !== 'public')) continue;
    const keyColumns =
      database.dialect === 'sqlite' ? await sqlitePrimaryKey(database, table.name) : new Set();
    const columns = new Map<string, MigratedColumn>();
    for (const column of table.columns) {
      columns.set(column.name, {
        dataType: column.dataType.toLowerCase(),
        nullable: column.isNullable && !keyColumns.has(column.name),
      });
    }
    migrated.set(table.name, columns);
  }
  return migrated;
}

/**
 * SQLite lets a primary key other than INTEGER hold NULL (a quirk it keeps for old files); the
 * migrations mean NOT NULL there, as PostgreSQL enforces, and the application never writes one.
 */
async function sqlitePrimaryKey(database: Database, table: string): Promise<Set<string>> {
  const { rows } = await sql<{
    name: string;
  }>`select name from pragma_table_info(${table}) where pk > 0`.execute(database.db);
  return new Set(rows.map((row) => row.name));
}

/**
 * Every disagreement between the store and the descriptions, one sentence each, both ways: a table or
 * column on one side only, a kind the dialect stores under another type, a different nullability.
 * `described` names each description by the table types derived from it, for the messages.
 */
export function schemaDifferences(
  described: Record<string, SchemaColumns>,
  migrated: MigratedTables,
  dialect: Dialect,
): string[] {
  const differences: string[] = [];
  const owners = new Map<string, string>();
  for (const [owner, tables] of Object.entries(described)) {
    for (const [table, columns] of Object.entries(tables)) {
      const other = owners.get(table);
      if (other !== undefined) differences.push(`${table}: described twice, in ${other} and ${owner}`);
      owners.set(table, owner);
      const actual = migrated.get(table);
      if (actual === undefined) {
        differences.push(`${table}: in ${owner} but the migrations create no such table`);
        continue;
      }
      for (const [name, column] of Object.entries(columns)) {
        const where = `${table}.${name}`;
        const found = actual.get(name);
        const expected = catalogueTypes[dialect][column.kind];
        if (found === undefined) differences.push(`${where}: in ${owner} but not in the migrated table`);
        else if (found.dataType !== expected)
          differences.push(
            `${where}: ${owner} says ${column.kind} (${expected} on ${dialect}), the migrated column is ${found.dataType}`,
          );
        else if (found.nullable !== column.nullable)
          differences.push(
            `${where}: ${owner} says ${column.nullable ? 'nullable' : 'not null'}, the migrated column is ${found.nullable ? 'nullable' : 'not null'}`,
          );
      }
      for (const [name, found] of actual) {
        if (!(name in columns))
          differences.push(`${table}.${name}: migrated (${found.dataType}) but missing from ${owner}`);
      }
    }
  }
  for (const table of migrated.keys()) {
    if (!owners.has(table)) differences.push(`${table}: migrated but described by no table types`);
  }
  return differences;
}
