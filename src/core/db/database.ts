import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  Kysely,
  type Dialect as KyselyDialect,
  PostgresDialect,
  SqliteDialect,
  sql,
} from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { type ChangeSignal, type OpenChangeSignal, openChangeSignal } from './change-signal.ts';
import { statementPipeline } from './pipeline.ts';
import {
  onThePool,
  PipelinedDialect,
  type Pipelines,
  postgresStatement,
  statementNames,
} from './pipelined-driver.ts';
import type { StoreStatement } from './prepared.ts';
import { preparedOnce, sqliteStatement } from './sqlite-statements.ts';
import type { CoreTables } from './tables.ts';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  /** Typed over the core tables; a service widens it with `db.withTables<ItsTables>()`. */
  readonly db: Kysely<CoreTables>;
  /**
   * `db` where `db.connection()` holds one connection for all it runs: what the migrator needs (Kysely
   * takes and frees its lock, a PostgreSQL session-level advisory lock, on one connection). The pipelined
   * `db` sends each statement of a `connection()` to whichever pipelined connection takes it.
   */
  readonly sessionDb: Kysely<CoreTables>;
  readonly dialect: Dialect;
  /** Where the data lives, for logs: the SQLite file or the PostgreSQL host and database (no password). */
  readonly location: string;
  /** The raw SQLite connection (tests and the statement-plans check read it; the product goes through Kysely). */
  readonly sqlite?: SQLite.Database;
  /** The PostgreSQL pool: transactions, and every statement when DATABASE_PIPELINE_CONNECTIONS is 0. */
  readonly postgres?: pg.Pool;
  /**
   * The pipelined connections (pipeline.ts) every single statement outside a transaction goes through
   * (pipelined-driver.ts), reads and writes apart, when DATABASE_PIPELINE_CONNECTIONS is not 0.
   */
  readonly pipelines?: Pipelines;
  /**
   * The store's change signal `name` (see change-signal.ts), shared by every process on this SQLite file;
   * undefined on PostgreSQL, where servers on other hosts could not see it: callers then read the rows.
   */
  changeSignal(name: string): ChangeSignal | undefined;
  /** What this process has asked of the store, for /metrics: read on scrape, never on the request path. */
  readonly statistics: StoreStatistics;
  /** A compiled statement to run again with new values, outside any transaction (prepared.ts `prepared`). */
  prepare(compiled: CompiledQuery): StoreStatement;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface StoreStatistics {
  /** Statements this process sent to the store (through Kysely). */
  statements: number;
}

/** Counts one statement sent outside Kysely (a prepared query's) in `statistics`. */
const counting = (statistics: StoreStatistics) => () => {
  statistics.statements++;
};

/** A Kysely whose every statement (and failed statement) counts in `statistics`. */
function countingKysely(dialect: KyselyDialect, statistics: StoreStatistics): Kysely<CoreTables> {
  return new Kysely<CoreTables>({
    dialect,
    log: () => {
      statistics.statements++;
    },
  });
}

/** A process that keeps its store open this long gets a checkpointer thread (a short admin command does not). */
const CHECKPOINTER_DELAY_MS = 1000;
/**
 * With the checkpointer running, the serving connection checkpoints only as a backstop, past this many WAL
 * pages (about 200 MiB), should the checkpointer fail.
 */
const BACKSTOP_CHECKPOINT_PAGES = 50_000;

/** int8 and numeric columns hold epoch milliseconds and ids within 2^53: read them as numbers. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export function openDatabase(
  config: Pick<
    Config,
    'DATABASE_URL' | 'DATABASE_POOL_SIZE' | 'DATABASE_PIPELINE_CONNECTIONS' | 'SINTONIA_DATA_DIR'
  >,
): Database {
  return config.DATABASE_URL
    ? openPostgres(config.DATABASE_URL, config.DATABASE_POOL_SIZE, config.DATABASE_PIPELINE_CONNECTIONS)
    : openSqlite(config.SINTONIA_DATA_DIR);
}

function openSqlite(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true });
  const file = resolve(join(dataDir, 'sintonia.sqlite'));
  const connection = new SQLite(file);
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  const statistics: StoreStatistics = { statements: 0 };
  const db = countingKysely(new SqliteDialect({ database: preparedOnce(connection) }), statistics);
  const signals = new Map<string, OpenChangeSignal>();
  let checkpointer: WalCheckpointer | undefined;
  const startCheckpointer = setTimeout(() => {
    checkpointer = startWalCheckpointer(file);
    connection.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  }, CHECKPOINTER_DELAY_MS);
  startCheckpointer.unref();
  return {
    db,
    sessionDb: db,
    dialect: 'sqlite',
    location: file,
    sqlite: connection,
    changeSignal(name) {
      let signal = signals.get(name);
      if (signal === undefined) {
        signal = openChangeSignal(`${file}-${name}.signal`);
        signals.set(name, signal);
      }
      return signal;
    },
    statistics,
    prepare: (compiled) => sqliteStatement(connection, db, compiled, counting(statistics)),
    ping: () => ping(db),
    close: async () => {
      clearTimeout(startCheckpointer);
      await checkpointer?.stop();
      for (const signal of signals.values()) signal.close();
      await db.destroy();
    },
  };
}

const CONNECTION_TIMEOUT_MS = 5000;

/** How the pool's connections show in pg_stat_activity (the pipelined ones: PIPELINE_APPLICATION_NAME). */
export const POOL_APPLICATION_NAME = 'sintonia-pool';
/** How the pipelined connections for writes show there (each turn's writes in one transaction). */
export const WRITES_APPLICATION_NAME = 'sintonia-writes';

function openPostgres(url: string, poolSize: number, pipelineConnections: number): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: pgTypes,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    application_name: POOL_APPLICATION_NAME,
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Nor a client that loses it while checked out (a write, a transaction): the pool listens to its clients'
  // errors only while they are idle, and an 'error' with no listener ends the process. Its statement fails
  // on its own (503), and the pool drops the client when it comes back.
  pool.on('connect', (client) => client.on('error', () => {}));
  const statistics: StoreStatistics = { statements: 0 };
  const pipelineOptions = {
    connectionString: url,
    connections: pipelineConnections,
    types: pgTypes,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
  };
  const pipelines: Pipelines | undefined =
    pipelineConnections > 0
      ? {
          reads: statementPipeline(pipelineOptions),
          writes: statementPipeline({
            ...pipelineOptions,
            applicationName: WRITES_APPLICATION_NAME,
            alone: (statement) => onThePool(pool, statement),
          }),
        }
      : undefined;
  const nameOf = statementNames();
  const dialect = pipelines ? new PipelinedDialect(pool, pipelines, nameOf) : new PostgresDialect({ pool });
  const db = countingKysely(dialect, statistics);
  const parsed = new URL(url);
  return {
    db,
    // On the pool; not destroyed apart: db.destroy() ends the pool they share.
    sessionDb: pipelines ? new Kysely<CoreTables>({ dialect: new PostgresDialect({ pool }) }) : db,
    dialect: 'postgres',
    location: `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`,
    postgres: pool,
    ...(pipelines ? { pipelines } : {}),
    changeSignal: () => undefined,
    statistics,
    prepare: (compiled) => postgresStatement({ pipelines, pool }, nameOf, compiled, counting(statistics)),
    ping: () => ping(db),
    close: async () => {
      await Promise.all([pipelines?.reads.close(), pipelines?.writes.close()]);
      await db.destroy();
    },
  };
}

async function ping(db: Kysely<CoreTables>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
