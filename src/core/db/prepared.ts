import type { Compilable, CompiledQuery } from 'kysely';

/**
 * One compiled statement as the store runs it again and again with new values, outside any transaction:
 * on SQLite a statement prepared once, on PostgreSQL a named statement on the pipelines (or the pool).
 * Made by the store (database.ts `prepare`), used through `prepared` below.
 */
export interface StoreStatement {
  rows(values: unknown[]): Promise<unknown[]>;
  first(values: unknown[]): Promise<unknown>;
}

/** A named argument's place in a query: compiled as a parameter, filled in at each call. */
class Argument {
  constructor(readonly name: string) {}
}

/** Stands for a call's `args[name]` in the query `prepared` builds: typed as that value, never one at run time. */
export type ArgumentOf<A> = <K extends keyof A & string>(name: K) => A[K];

export interface PreparedQuery<A, R> {
  all(args: A): Promise<R[]>;
  first(args: A): Promise<R | undefined>;
}

/**
 * A Kysely query written once over named arguments (`arg('userHash')` where a value would go), compiled
 * once, and run by the store with each call's arguments: what a hot statement of a user's path costs then
 * is the database's work and the driver's, not the building and compiling of the query again at every
 * request (most of a hot SQLite read's time in our server: docs/decisions-performance.md). The query is
 * built once, before any call, so it cannot branch on an argument's value: a query whose shape depends
 * on the call (an optional filter, a list of values) stays plain Kysely. Inside a transaction, use the
 * transaction's Kysely: a prepared query runs outside it.
 */
export function prepared<A extends object, R>(
  database: { prepare(compiled: CompiledQuery): StoreStatement },
  build: (arg: ArgumentOf<A>) => Compilable<R>,
): PreparedQuery<A, R> {
  const compiled = build((name) => new Argument(name) as never).compile();
  const parameters = compiled.parameters;
  // Each parameter's argument name, or undefined for a value the query itself holds (a literal).
  const names = parameters.map((value) => (value instanceof Argument ? value.name : undefined));
  const statement = database.prepare(compiled);
  const values = (args: A): unknown[] => {
    const filled = new Array<unknown>(names.length);
    for (let index = 0; index < names.length; index++) {
      const name = names[index];
      filled[index] = name === undefined ? parameters[index] : (args as Record<string, unknown>)[name];
    }
    return filled;
  };
  return {
    all: (args) => statement.rows(values(args)) as Promise<R[]>,
    first: (args) => statement.first(values(args)) as Promise<R | undefined>,
  };
}
