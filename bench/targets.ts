import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { seedBaselinePostgres } from './baseline/pg-seed.ts';
import { seedBaseline } from './baseline/seed.ts';
import { type Dataset, seededRandom } from './dataset.ts';
import type { LoadPlan } from './load.ts';
import type { BenchStore } from './store.ts';

/** The operation a path measures; a path's ratio is taken against the bare path of the same operation. */
export type Operation = 'read' | 'write' | 'devices';
export type Format = 'json' | 'bson' | 'ubjson' | 'xml';

export interface PathPlan {
  name: string;
  operation: Operation;
  format: Format;
  requests: LoadPlan['requests'];
}

export interface Target {
  name: 'bare' | 'sintonia';
  /** Writes the target's store into its folder; runs before the server starts, with nothing else running. */
  seed(dataset: Dataset, dir: string): Promise<void>;
  server(dir: string, port: number): { args: string[]; env: Record<string, string>; readyPath: string };
  /** The paths to load, built once the server answers (the real service hands out tokens then). */
  paths(dataset: Dataset, url: string, count: number): Promise<PathPlan[]>;
}

/**
 * The product's PostgreSQL pool size, which the bare baseline's pool copies: the configuration variable
 * that sets it when the product has one (the bench then sets both), else the product's fixed size.
 */
export interface PoolSetting {
  size: number;
  variable?: string;
}

export const accept: Record<Format, string> = {
  json: 'application/json',
  bson: 'application/bson',
  ubjson: 'application/ubjson',
  xml: 'application/xml',
};

/** `count` picks of `make(random)`, seeded so that both targets of one run get comparable keys. */
export function picks<T>(count: number, seed: number, make: (random: () => number) => T): T[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => make(random));
}

export function pickOne<T>(list: readonly T[], random: () => number): T {
  const item = list[Math.floor(random() * list.length)];
  if (item === undefined) throw new Error('cannot pick from an empty list');
  return item;
}

export const bareUserHash = (user: number) =>
  createHash('sha256').update(`bench-user-${user}`).digest('base64url');

/**
 * The bare baseline on the bench's store: Fastify with better-sqlite3, or with a node-postgres pool of
 * `poolSize` (the product's own pool size) on a database of its own in the cluster.
 */
export function bareTarget(store: BenchStore, pool: PoolSetting): Target {
  let databaseUrl = '';
  return {
    name: 'bare',
    async seed(dataset, dir) {
      if (store.kind === 'sqlite') {
        seedBaseline(join(dir, 'bare.sqlite'), dataset, bareUserHash);
        return;
      }
      databaseUrl = await store.createDatabase('bench_bare');
      await seedBaselinePostgres(databaseUrl, dataset, bareUserHash);
    },
    server(dir, port): ReturnType<Target['server']> {
      // The product's V8 setting (bin/sintonia.mjs): without it the baseline too ran with or without its
      // row objects pretenured, by V8's choice, from one run to the next.
      const node = ['--no-allocation-site-pretenuring', '--import', 'tsx'];
      if (store.kind === 'sqlite')
        return {
          args: [...node, 'bench/baseline/server.ts'],
          env: { BENCH_DB: join(dir, 'bare.sqlite'), BENCH_PORT: String(port) },
          readyPath: '/readyz',
        };
      return {
        args: [...node, 'bench/baseline/pg-server.ts'],
        env: {
          BENCH_DATABASE_URL: databaseUrl,
          BENCH_POOL_SIZE: String(pool.size),
          BENCH_PORT: String(port),
        },
        readyPath: '/readyz',
      };
    },
    paths: barePaths,
  };
}

async function barePaths(dataset: Dataset, _url: string, count: number): Promise<PathPlan[]> {
  return [
    {
      name: 'bare read',
      operation: 'read',
      format: 'json',
      requests: picks(count, 1, (random) => {
        const bookmark = pickOne(dataset.keys.bookmarks, random);
        return { method: 'GET', path: `/bookmarks/${bareUserHash(bookmark.user)}/${bookmark.contentId}` };
      }),
    },
    {
      name: 'bare upsert',
      operation: 'write',
      format: 'json',
      requests: picks(count, 2, (random) => {
        const user = pickOne(dataset.keys.users, random);
        const device = pickOne(user.deviceIds, random);
        const contentId = 1 + Math.floor(random() * dataset.maxContentId * 2);
        const offset = Math.floor(random() * 7200);
        return {
          method: 'POST',
          path: `/bookmarks/${user.accountNumber}/${dataset.deviceClass}/${device}/${bareUserHash(user.index)}/${contentId}/${offset}`,
        };
      }),
    },
    {
      name: 'bare device list',
      operation: 'devices',
      format: 'json',
      requests: picks(count, 3, (random) => ({
        method: 'GET',
        path: `/accounts/${pickOne(dataset.keys.listUsers, random).accountNumber}/devices`,
      })),
    },
  ];
}
