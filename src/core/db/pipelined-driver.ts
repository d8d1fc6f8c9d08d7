import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type PostgresDialectConfig,
  PostgresDriver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import type { Statement, StatementPipeline, StatementRunner } from './pipeline.ts';
import type { StoreStatement } from './prepared.ts';
import { isStoreUnavailable } from './unavailable.ts';

/** A connection of the pool, as Kysely's PostgreSQL driver hands it out and takes it back. */
type PooledConnection = Parameters<PostgresDriver['releaseConnection']>[0];

/** Most statement texts given a name (parsed once per pipelined connection); past it, the rest go unnamed. */
const NAMED_TEXTS = 1000;

/** The pipelines (pipeline.ts) single statements outside a transaction go through. */
export interface Pipelines {
  /** Reads, each its own implicit transaction. */
  reads: StatementPipeline;
  /** Writes, each turn's on a connection in one transaction (`alone`: their commit is shared). */
  writes: StatementPipeline;
}

/**
 * PostgreSQL for Kysely: every single statement outside a transaction sent through a pipeline (pipeline.ts)
 * as a named statement, a read through the reads', a write through the writes'; transactions and streams
 * on a connection of the pool, as Kysely's own PostgreSQL driver does. A repository writes plain Kysely and
 * never knows which.
 *
 * Why writes have pipelined connections of their own, each turn's in one transaction: a backend runs its
 * pipelined statements one after the other, and a durable commit waits for its WAL flush, so writes sent
 * one by one on the reads' connections queued behind each other's flushes (a quarter of the bare
 * baseline's pooled upsert), and one by one on the pool each waited for a flush of its own, a connection
 * held all the while (0.58× of it). A turn's writes in one transaction share one flush, and leave in one
 * write (docs/decisions-performance.md).
 */
export class PipelinedDialect extends PostgresDialect {
  readonly #pool: pg.Pool;
  readonly #pipelines: Pipelines;
  readonly #nameOf: (text: string) => string | undefined;

  constructor(pool: pg.Pool, pipelines: Pipelines, nameOf: (text: string) => string | undefined) {
    super({ pool } satisfies PostgresDialectConfig);
    this.#pool = pool;
    this.#pipelines = pipelines;
    this.#nameOf = nameOf;
  }

  override createDriver(): Driver {
    return new PipelinedDriver(new PostgresDriver({ pool: this.#pool }), this.#pipelines, this.#nameOf);
  }
}

/**
 * A prepared query's statement on PostgreSQL (prepared.ts): sent as the driver sends a single statement,
 * named, through a pipeline (a read through the reads', a write through the writes'), or, with no pipelines
 * (DATABASE_PIPELINE_CONNECTIONS=0), on the pool.
 */
export function postgresStatement(
  runners: { pipelines: Pipelines | undefined; pool: pg.Pool },
  nameOf: (text: string) => string | undefined,
  compiled: CompiledQuery,
  counted: () => void,
): StoreStatement {
  const { pipelines, pool } = runners;
  const runner: StatementRunner = pipelines ? (writes(compiled) ? pipelines.writes : pipelines.reads) : pool;
  // Named only on the pipelines, as the driver names: with none, every statement runs unnamed on the pool.
  const name = pipelines ? nameOf(compiled.sql) : undefined;
  const rows = (values: unknown[]) => {
    counted();
    return runner.query({ name, text: compiled.sql, values }).then((result) => result.rows as unknown[]);
  };
  return { rows, first: (values) => rows(values).then((found) => found[0]) };
}

/** A statement's name by its text, given in order of first use: the same text is the same name in this process. */
export function statementNames(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined && names.size < NAMED_TEXTS) {
      name = `k${names.size}`;
      names.set(text, name);
    }
    return name;
  };
}

/**
 * What Kysely acquires for each query: the pipeline until a transaction begins on it, then a connection of
 * the pool, held until Kysely releases it.
 */
class PipelinedConnection implements DatabaseConnection {
  held: PooledConnection | undefined;

  constructor(
    private readonly pool: PostgresDriver,
    private readonly pipelines: Pipelines,
    private readonly nameOf: (text: string) => string | undefined,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.held !== undefined) return this.held.executeQuery(compiled);
    const pipeline = writes(compiled) ? this.pipelines.writes : this.pipelines.reads;
    const { command, rowCount, rows } = await pipeline.query({
      name: this.nameOf(compiled.sql),
      text: compiled.sql,
      values: compiled.parameters as unknown[],
    });
    const changed =
      command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { numAffectedRows: changed ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.hold()).streamQuery<R>(compiled, chunkSize);
  }

  async hold(): Promise<PooledConnection> {
    this.held ??= (await this.pool.acquireConnection()) as PooledConnection;
    return this.held;
  }
}

class PipelinedDriver implements Driver {
  /** Released connections, reused: Kysely sets up each connection object it has not seen before. */
  readonly #free: PipelinedConnection[] = [];

  constructor(
    private readonly pool: PostgresDriver,
    private readonly pipelines: Pipelines,
    private readonly nameOf: (text: string) => string | undefined,
  ) {}

  init(): Promise<void> {
    return this.pool.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#free.pop() ?? new PipelinedConnection(this.pool, this.pipelines, this.nameOf);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.pool.beginTransaction(await (connection as PipelinedConnection).hold(), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.pool.commitTransaction(heldOf(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.pool.rollbackTransaction(heldOf(connection));
  }

  savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<PostgresDriver['savepoint']>[2],
  ): Promise<void> {
    return this.pool.savepoint(heldOf(connection), name, compile);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<PostgresDriver['rollbackToSavepoint']>[2],
  ): Promise<void> {
    return this.pool.rollbackToSavepoint(heldOf(connection), name, compile);
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<PostgresDriver['releaseSavepoint']>[2],
  ): Promise<void> {
    return this.pool.releaseSavepoint(heldOf(connection), name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const pipelined = connection as PipelinedConnection;
    const { held } = pipelined;
    pipelined.held = undefined;
    if (held !== undefined) await this.pool.releaseConnection(held);
    this.#free.push(pipelined);
  }

  destroy(): Promise<void> {
    return this.pool.destroy();
  }
}

/**
 * One statement alone on a connection of the pool: a write of a turn whose transaction rolled back
 * (pipeline.ts `alone`). A connection that failed under it (the server ended it, or it was lost) is given
 * back with the error, so the pool drops it at once: given back as fine, it could be handed to the next
 * statement before its end is noticed, which would then fail on it too.
 */
export async function onThePool(pool: pg.Pool, statement: Statement): Promise<pg.QueryResult> {
  const client = await pool.connect();
  let lost: Error | undefined;
  try {
    return await client.query(statement);
  } catch (error) {
    // The errors that answer 503 (unavailable.ts) are the ones that say the connection cannot go on.
    if (isStoreUnavailable(error)) lost = error as Error;
    throw error;
  } finally {
    client.release(lost);
  }
}

/** Kysely's writes, and raw SQL that starts as one (`with` reads are kept on the pipeline). */
function writes(compiled: CompiledQuery): boolean {
  const { kind } = compiled.query;
  if (kind === 'InsertQueryNode' || kind === 'UpdateQueryNode' || kind === 'DeleteQueryNode') return true;
  if (kind === 'MergeQueryNode') return true;
  return kind === 'RawNode' && /^\s*(insert|update|delete|merge)\b/i.test(compiled.sql);
}

function heldOf(connection: DatabaseConnection): PooledConnection {
  const { held } = connection as PipelinedConnection;
  if (held === undefined) throw new Error('no transaction on this connection');
  return held;
}
