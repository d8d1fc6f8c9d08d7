/**
 * Each table's columns, described once as a value: the row types Kysely uses are derived from it
 * (`TableTypes`), and a test migrates a fresh store and compares it with the same value, so the types
 * and the migrations cannot drift apart unnoticed.
 */

/**
 * The column types our migrations use, and what each reads as: times are epoch milliseconds (bigint,
 * read as numbers on both dialects, see database.ts); booleans are 0/1 integers.
 */
interface KindValue {
  text: string;
  integer: number;
  bigint: number;
}

export type ColumnKind = keyof KindValue;

export interface Column<Value = unknown, Nullable extends boolean = boolean> {
  readonly kind: ColumnKind;
  readonly nullable: Nullable;
  /** Type only, never set: the value the column holds when not null (a kind's type or a narrower one). */
  readonly value?: Value;
}

export type TableColumns = Readonly<Record<string, Column>>;
export type SchemaColumns = Readonly<Record<string, TableColumns>>;

const column =
  <K extends ColumnKind>(kind: K) =>
  <Value extends KindValue[K] = KindValue[K]>(): Column<Value, false> => ({ kind, nullable: false });

/** A text column; `text<'a' | 'b'>()` narrows the type of what the application stores in it. */
export const text = column('text');
export const integer = column('integer');
export const bigint = column('bigint');

export function nullable<Value>(described: Column<Value, false>): Column<Value, true> {
  return { kind: described.kind, nullable: true };
}

type ColumnValue<C> =
  C extends Column<infer Value, infer Nullable> ? (Nullable extends true ? Value | null : Value) : never;

/** Kysely's table types (a type alias, so `withTables` accepts it) from a description of the columns. */
export type TableTypes<S extends SchemaColumns> = {
  -readonly [Table in keyof S]: { -readonly [Name in keyof S[Table]]: ColumnValue<S[Table][Name]> };
};
