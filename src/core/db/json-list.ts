import { type RawBuilder, sql } from 'kysely';
import { unpacker } from './statement.ts';

/** A list's rows as the JSON value of one column, and the way back to rows. */
export interface JsonList<Row> {
  /** `json_agg(json_build_array(<alias>.<column>, …))`: null when no row matched. */
  readonly aggregate: RawBuilder<unknown[][] | null>;
  /** The rows of the column's value (parsed by the driver); none for null. */
  rows(value: unknown[][] | null | undefined): Row[];
}

/**
 * PostgreSQL: the rows of a subquery as one JSON array of arrays, for a list that would otherwise come back
 * as a row per item. One row per item costs the database a result row each (and a JSON array each when
 * packed) and the driver a message and a parse each; as one value, a 20-device list cost the database 80
 * µs instead of 118 (pgbench, one connection) and the server one parse (docs/decisions-performance.md,
 * "Lists as one JSON value").
 * Only the columns named travel: a list names what its answer uses, not the table's every column.
 *
 * In no particular order: an ordered aggregate sorts on its own (PostgreSQL 15 cannot use an index's order
 * for it), which cost the database another 10 µs a list, where sorting 20 rows here costs about one.
 */
export function jsonList<Row>(
  name: string,
  alias: string,
  columns: ReadonlyArray<keyof Row & string>,
): JsonList<Row> {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  const unpack = unpacker<Row>(name, columns);
  return {
    aggregate: sql<unknown[][] | null>`json_agg(json_build_array(${sql.join(columns.map(ref))}))`,
    rows: (value) => (value == null ? [] : value.map(unpack)),
  };
}
