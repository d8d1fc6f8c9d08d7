/**
 * Where a bench run keeps its data: the embedded store (SQLite files in the run's folder) or a PostgreSQL
 * cluster, either a throwaway one started here from the machine's binaries (scripts/pg-cluster.mjs, as the
 * test command does) or the one `--database-url` names (the test command's own, in the smoke test). On
 * PostgreSQL every target gets a database of its own in that cluster, dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { postgresBin, startPostgres } from '../scripts/pg-cluster.mjs';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface BenchStore {
  kind: DatabaseKind;
  /** For the report: `SQLite` or `PostgreSQL 15`. */
  label: string;
  /** A fresh empty database (PostgreSQL only): its URL. */
  createDatabase(prefix: string): Promise<string>;
  /** CPU time of the whole database cluster so far in ms, when it is ours to watch; else undefined. */
  cpuMs(): number | undefined;
  close(): Promise<void>;
}

export const sqliteStore: BenchStore = {
  kind: 'sqlite',
  label: 'SQLite',
  createDatabase: () => Promise.reject(new Error('the embedded store has no databases to create')),
  cpuMs: () => undefined,
  close: async () => {},
};

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms on Linux). */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = statFields(pid);
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the command name (field 3 is index 0). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** A process and its children (a postmaster and its backends): their CPU time in ms. */
function treeCpuMs(pid: number): number | undefined {
  const own = processCpuMs(pid);
  if (own === undefined) return undefined;
  let total = own;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(Number(entry));
      // field 4 (ppid) is index 1; the exited children's time is in the parent's cutime/cstime (13, 14).
      if (Number(fields[1]) === pid) total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // gone meanwhile
    }
  }
  const fields = statFields(pid);
  return total + (Number(fields[13]) + Number(fields[14])) * 10;
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL store: the cluster at `adminUrl`, or a throwaway one started here. */
export async function postgresStore(adminUrl: string | undefined): Promise<BenchStore> {
  let url = adminUrl;
  let version = '';
  let pid: number | undefined;
  let stop = () => {};
  if (!url) {
    const binaries = postgresBin();
    if (!binaries)
      throw new Error(
        'PostgreSQL server binaries not found under /usr/lib/postgresql: install them, or pass --database-url',
      );
    const cluster = await startPostgres(binaries);
    ({ url, version, pid } = cluster);
    stop = () => cluster.stop();
  }
  const created: string[] = [];
  const admin = url;
  if (!version) {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    await client.end();
    version = (rows[0]?.server_version ?? '').split(' ')[0] ?? '';
  }
  return {
    kind: 'postgres',
    label: `PostgreSQL ${version}`,
    async createDatabase(prefix) {
      const name = `${prefix}_${randomBytes(4).toString('hex')}`;
      await adminQuery(admin, `create database ${name}`);
      created.push(name);
      const databaseUrl = new URL(admin);
      databaseUrl.pathname = `/${name}`;
      return databaseUrl.toString();
    },
    cpuMs: () => (pid === undefined ? undefined : treeCpuMs(pid)),
    async close() {
      try {
        if (adminUrl)
          for (const name of created) await adminQuery(admin, `drop database if exists ${name} with (force)`);
      } finally {
        stop();
      }
    },
  };
}
