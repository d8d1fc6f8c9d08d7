import {
  AliasNode,
  ColumnNode,
  type Compilable,
  CompiledQuery,
  DummyDriver,
  FunctionNode,
  IdentifierNode,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  ReferenceNode,
  type RootOperationNode,
  SelectionNode,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Database, Dialect } from './database.ts';

/**
 * A repository statement written once, as a Kysely query over named arguments, and compiled once per
 * process into what its dialect runs best: a prepared statement on SQLite's own connection, a named
 * statement (parsed once per connection, pipelined: Database.statements) on PostgreSQL. `build` gets the
 * arguments as placeholders standing for their values, so the query reads like any Kysely query; it runs
 * once, so it must not branch on an argument (write `cast(? as text) is null or …` instead of `$if`).
 */
export interface StatementDefinition<Tables, Args, Row> extends NamedStatement {
  readonly build: (db: Kysely<Tables>, args: Args) => Compilable<Row>;
  /**
   * PostgreSQL: the row travels as one JSON array column, unpacked by the selection's names. The driver
   * describes and parses every column of every row, so a wide row costs it one field instead of many.
   */
  readonly packed: boolean;
}

/** What a statement says of itself whatever its types: its name, dialects and SQL in each (the snapshot's view). */
export interface NamedStatement {
  readonly name: string;
  /** The dialects the statement is written for (a data-modifying WITH is PostgreSQL's only); default both. */
  readonly dialects: readonly Dialect[];
  compile(dialect: Dialect): CompiledStatement;
}

export function defineStatement<Tables, Args extends object, Row>(
  name: string,
  build: (db: Kysely<Tables>, args: Args) => Compilable<Row>,
  options: { dialects?: readonly Dialect[]; packed?: boolean } = {},
): StatementDefinition<Tables, Args, Row> {
  const definition: StatementDefinition<Tables, Args, Row> = {
    name,
    build,
    dialects: options.dialects ?? ['sqlite', 'postgres'],
    packed: options.packed ?? false,
    compile: (dialect) => compileStatement(definition, dialect),
  };
  return definition;
}

/** A statement compiled for one dialect: its SQL and which argument fills each placeholder. */
export interface CompiledStatement {
  readonly sql: string;
  /** The argument name of each placeholder, in order; constants the query holds are kept as values. */
  readonly parameters: ReadonlyArray<{ arg: string } | { value: unknown }>;
  /** Packed (PostgreSQL): the column names of the one JSON array column `r`. */
  readonly columns?: readonly string[];
}

const placeholderKey = Symbol('statement argument');
type Placeholder = { readonly [placeholderKey]: string };
const isPlaceholder = (value: unknown): value is Placeholder =>
  typeof value === 'object' && value !== null && placeholderKey in value;

/** The arguments as placeholders: `args.userHash` stands where the value will be bound. */
const placeholders = new Proxy({} as Record<string, Placeholder>, {
  get: (_target, name) => ({ [placeholderKey]: String(name) }),
});

/** A Kysely that only compiles, one per dialect: what the statements and their snapshots compile with. */
const compilers: Record<Dialect, Kysely<unknown>> = {
  sqlite: new Kysely({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgres: new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
};

export function compileStatement<Tables, Args, Row>(
  definition: StatementDefinition<Tables, Args, Row>,
  dialect: Dialect,
): CompiledStatement {
  const db = compilers[dialect] as Kysely<Tables>;
  const compiled = definition.build(db, placeholders as unknown as Args).compile();
  let node: RootOperationNode = compiled.query;
  let columns: string[] | undefined;
  if (definition.packed && dialect === 'postgres') {
    if (!SelectQueryNode.is(node)) throw new Error(`${definition.name}: only a select can be packed`);
    ({ node, columns } = packSelections(definition.name, node));
  }
  const { sql, parameters } =
    node === compiled.query ? compiled : db.getExecutor().compileQuery(node, compiled.queryId);
  return {
    sql,
    parameters: parameters.map((value) =>
      isPlaceholder(value) ? { arg: value[placeholderKey] } : { value },
    ),
    columns,
  };
}

/** The selections as one `json_build_array(…) as r` column, and their names in order. */
function packSelections(name: string, node: SelectQueryNode) {
  const columns: string[] = [];
  const values = (node.selections ?? []).map(({ selection }) => {
    if (AliasNode.is(selection) && IdentifierNode.is(selection.alias)) {
      columns.push(selection.alias.name);
      return selection.node;
    }
    if (ReferenceNode.is(selection) && ColumnNode.is(selection.column)) {
      columns.push(selection.column.column.name);
      return selection;
    }
    throw new Error(`${name}: a packed statement selects named columns only`);
  });
  const packed = AliasNode.create(
    FunctionNode.create('json_build_array', values),
    IdentifierNode.create('r'),
  );
  return { node: { ...node, selections: [SelectionNode.create(packed)] }, columns };
}

/** Runs a compiled statement with its arguments: the rows it answers. */
export type BoundStatement<Args, Row> = (args: Args) => Promise<Row[]>;

/**
 * The statement for `database`, compiled now. On SQLite it runs on the raw connection, except while a
 * Kysely transaction holds that connection (another request's): a statement run there would join it, so
 * those moments go through Kysely, which waits for the connection.
 */
export function bindStatement<Tables, Args extends object, Row>(
  database: Database,
  definition: StatementDefinition<Tables, Args, Row>,
): BoundStatement<Args, Row> {
  if (!definition.dialects.includes(database.dialect)) {
    throw new Error(`${definition.name} is not written for ${database.dialect}`);
  }
  const compiled = compileStatement(definition, database.dialect);
  const values = valuesOf<Args>(definition.name, compiled);
  const viaKysely = async (args: Args) =>
    (await database.db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, values(args)))).rows;
  const { sqlite, statements, statistics } = database;
  if (sqlite !== undefined) {
    const prepared = sqlite.prepare<unknown[], Row>(compiled.sql);
    return async (args) => {
      if (sqlite.inTransaction) return viaKysely(args);
      statistics.statements++;
      if (prepared.reader) return prepared.all(...values(args));
      prepared.run(...values(args));
      return [];
    };
  }
  if (statements === undefined) return viaKysely;
  const { name } = definition;
  const { sql: text, columns } = compiled;
  if (columns === undefined) {
    return async (args) => {
      statistics.statements++;
      return (await statements.query({ name, text, values: values(args) })).rows as Row[];
    };
  }
  const unpack = unpacker<Row>(name, columns);
  return async (args) => {
    statistics.statements++;
    const { rows } = await statements.query<{ r: unknown[] }>({ name, text, values: values(args) });
    return rows.map(({ r }) => unpack(r));
  };
}

/** A column or argument name that may be written into a function's source. */
const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A packed row's array as an object of its columns, by a function made once per statement that writes
 * the object literal out (`(r) => ({ a: r[0], b: r[1] })`): V8 then builds each row with one fixed shape,
 * where filling an empty object key by key took ten times as long (4.1–5.1 µs against 0.46–0.66 µs for
 * 20 device rows, micro-benchmark).
 * The names are the statement's own selections, checked to be plain identifiers.
 */
export function unpacker<Row>(name: string, columns: readonly string[]): (r: unknown[]) => Row {
  const fields = columns.map((column, index) => {
    if (!COLUMN_NAME.test(column)) throw new Error(`${name}: packed column ${column} is not a plain name`);
    return `${column}: r[${index}]`;
  });
  return new Function('r', `return { ${fields.join(', ')} };`) as (r: unknown[]) => Row;
}

/**
 * How to lay out an argument object as the placeholders' values: a function made once per statement, as
 * `unpacker`'s (`(a) => [a.userHash ?? null, constants[1], …]`), where a loop asking each placeholder what
 * it holds cost a property test per value per request. An argument left out binds as null (better-sqlite3
 * refuses undefined). Argument names are the statement's own, checked to be plain identifiers.
 */
function valuesOf<Args>(name: string, compiled: CompiledStatement): (args: Args) => unknown[] {
  const constants = compiled.parameters.map((parameter) =>
    'value' in parameter ? parameter.value : undefined,
  );
  const values = compiled.parameters.map((parameter, index) => {
    if (!('arg' in parameter)) return `constants[${index}]`;
    if (!COLUMN_NAME.test(parameter.arg))
      throw new Error(`${name}: argument ${parameter.arg} is not a plain name`);
    return `a.${parameter.arg} ?? null`;
  });
  return new Function('constants', `return (a) => [${values.join(', ')}];`)(constants) as (
    args: Args,
  ) => unknown[];
}
