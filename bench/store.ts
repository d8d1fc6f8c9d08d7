/**
 * Where a bench run keeps its data: SQLite files in the run's folder, or a PostgreSQL cluster, a throwaway
 * one (scripts/pg-cluster.mjs) or `--database-url`'s, each target in a database of its own.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresBin, startPostgres } from '../scripts/pg-cluster.mjs';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface BenchStore {
  kind: DatabaseKind;
  /** For the report: `SQLite` or `PostgreSQL 15.14`. */
  label: string;
  /** A fresh empty database (PostgreSQL only): its URL. */
  createDatabase(prefix: string): Promise<string>;
  close(): Promise<void>;
}

export const sqliteStore: BenchStore = {
  kind: 'sqlite',
  label: 'SQLite',
  createDatabase: () => Promise.reject(new Error('the embedded store has no databases to create')),
  close: async () => {},
};

/** One statement (or several, without parameters) on its own connection. */
export async function adminQuery<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A PostgreSQL store: the cluster at `adminUrl`, or a throwaway one started here. */
export async function postgresStore(adminUrl: string | undefined): Promise<BenchStore> {
  const binaries = adminUrl ? undefined : postgresBin();
  if (!adminUrl && !binaries)
    throw new Error(
      'PostgreSQL server binaries not found under /usr/lib/postgresql: install them, or pass --database-url',
    );
  const cluster = binaries ? await startPostgres(binaries, { durable: true }) : undefined;
  const admin = adminUrl ?? cluster?.url ?? '';
  const [version] = await adminQuery<{ server_version: string }>(admin, 'show server_version');
  const created: string[] = [];
  return {
    kind: 'postgres',
    label: `PostgreSQL ${version?.server_version.split(' ')[0] ?? ''}`,
    async createDatabase(prefix) {
      const name = `${prefix}_${randomBytes(4).toString('hex')}`;
      await adminQuery(admin, `create database ${name}`);
      created.push(name);
      return Object.assign(new URL(admin), { pathname: `/${name}` }).toString();
    },
    async close() {
      try {
        if (adminUrl)
          for (const name of created) await adminQuery(admin, `drop database if exists ${name} with (force)`);
      } finally {
        cluster?.stop();
      }
    },
  };
}
