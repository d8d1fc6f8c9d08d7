/**
 * The two servers the bench loads on one store, seeded with the same data set and loaded with the same
 * keys: the bare baseline (bench/bare-server.ts) and the real client-api.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { configSchema } from '../src/core/config.ts';
import * as data from './dataset.ts';
import { root } from './process.ts';
import { BENCH_PASSWORD, bareUserHash, seedBare, seedSintonia } from './seed.ts';
import type { BenchStore } from './store.ts';

/** What a path measures; a path's ratio is taken against the bare path of the same operation. */
export type Operation = 'read' | 'write' | 'devices';
export type Format = 'json' | 'bson' | 'ubjson' | 'xml';
export type Request = { method: string; path: string; headers?: Record<string, string> };
export type PathPlan = { name: string; operation: Operation; format: Format; requests: Request[] };

export interface Target {
  name: 'bare' | 'sintonia';
  /** Writes the target's store; runs once, before any server starts. */
  seed(shape: data.Shape, dir: string): Promise<void>;
  server(dir: string, port: number): { args: string[]; env: Record<string, string> };
  /** The paths to load, built once the server answers (the real service hands out tokens then). */
  paths(shape: data.Shape, url: string, count: number): Promise<PathPlan[]>;
  /** The target's PostgreSQL database, once seeded. */
  databaseUrl?: string;
}

/** The product's PostgreSQL pool size (DATABASE_POOL_SIZE as this run's environment sets it): both pools'. */
export function poolSize(): number {
  const declared = (configSchema.properties as Record<string, { default?: unknown }>).DATABASE_POOL_SIZE;
  return Number(process.env.DATABASE_POOL_SIZE ?? declared?.default ?? 10);
}

/** How one target spells each operation's request for a user. */
interface Routes {
  read(user: number, content: number, format: Format): Request;
  write(user: number, content: number, offset: number, device: number): Request;
  devices(user: number): Request;
}

/**
 * Each path's `count` requests, from a seeded generator (both targets get the same keys): reads of the
 * signed-in users' bookmarks (the four formats back to back, before anything writes), saves of content
 * ids of which about half exist, device lists of the signed-in users holding `listDevices` devices.
 */
function plans(
  shape: data.Shape,
  count: number,
  routes: Routes,
  formats: Format[],
  names: string[],
): PathPlan[] {
  const users = data.signedInUsers(shape);
  const listUsers = users.filter((user) => user < shape.listAccounts);
  const make = (seed: number, request: (pick: (n: number) => number) => Request) => {
    const random = data.seededRandom(seed);
    const pick = (n: number) => Math.floor(random() * n);
    return Array.from({ length: count }, () => request(pick));
  };
  const [read = '', write = '', devices = ''] = names;
  const user = (pick: (n: number) => number) => users[pick(users.length)] ?? 0;
  return [
    ...formats.map((format) => ({
      name: `${read}${formats.length > 1 ? ` ${format.toUpperCase()}` : ''}`,
      operation: 'read' as const,
      format,
      requests: make(1, (pick) => {
        const reader = user(pick);
        return routes.read(reader, data.contentOf(reader, pick(shape.bookmarksPerUser)), format);
      }),
    })),
    {
      name: write,
      operation: 'write',
      format: 'json',
      requests: make(2, (pick) => {
        const writer = user(pick);
        return routes.write(
          writer,
          1 + pick(data.maxContent(shape)),
          pick(7200),
          pick(data.devicesOf(shape, writer)),
        );
      }),
    },
    {
      name: devices,
      operation: 'devices',
      format: 'json',
      requests: make(3, (pick) => routes.devices(listUsers[pick(listUsers.length)] ?? 0)),
    },
  ];
}

/** Fastify on better-sqlite3, or on a node-postgres pool of the product's size; no auth, JSON only. */
export function bareTarget(store: BenchStore): Target {
  const routes: Routes = {
    read: (user, content) => ({ method: 'GET', path: `/bookmarks/${bareUserHash(user)}/${content}` }),
    write: (user, content, offset, device) => ({
      method: 'POST',
      path: `/bookmarks/${data.accountNumber(user)}/${data.DEVICE_CLASS}/${data.deviceId(user, device)}/${bareUserHash(user)}/${content}/${offset}`,
    }),
    devices: (user) => ({ method: 'GET', path: `/accounts/${data.accountNumber(user)}/devices` }),
  };
  const target: Target = {
    name: 'bare',
    async seed(shape, dir) {
      if (store.kind === 'postgres') target.databaseUrl = await store.createDatabase('bench_bare');
      await seedBare(
        target.databaseUrl ? { url: target.databaseUrl } : { file: join(dir, 'bare.sqlite') },
        shape,
      );
    },
    server: (dir, port) => ({
      // The product's V8 setting (bin/sintonia.mjs), so that both servers collect garbage alike.
      args: ['--no-allocation-site-pretenuring', '--import', 'tsx', join(root, 'bench/bare-server.ts')],
      env: {
        BENCH_STORE: target.databaseUrl ?? join(dir, 'bare.sqlite'),
        BENCH_POOL_SIZE: String(poolSize()),
        BENCH_PORT: String(port),
      },
    }),
    paths: async (shape, _url, count) =>
      plans(shape, count, routes, ['json'], ['bare read', 'bare upsert', 'bare device list']),
  };
  return target;
}

const api = '/api/v1';
const accept = (format: Format) => `application/${format}`;

/** The real client-api: `sintonia serve --service client-api` of this checkout (or BENCH_SINTONIA_ROOT's). */
export function sintoniaTarget(store: BenchStore): Target {
  const masterKey = randomBytes(32).toString('hex');
  let userHashes: string[] = [];
  const environment = (dir: string) => ({
    SINTONIA_DATA_DIR: join(dir, 'sintonia'),
    SINTONIA_MASTER_KEY: masterKey,
    DATABASE_URL: target.databaseUrl ?? '',
    DATABASE_POOL_SIZE: String(poolSize()),
    SINTONIA_DEMO: '0',
    HOST: '127.0.0.1',
    // The device-list accounts hold 20 enabled devices.
    MAX_DEVICES_PER_ACCOUNT: '20',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  });
  const target: Target = {
    name: 'sintonia',
    async seed(shape, dir) {
      if (store.kind === 'postgres') target.databaseUrl = await store.createDatabase('bench_sintonia');
      userHashes = await seedSintonia({ ...environment(dir), LOG_LEVEL: 'silent' }, shape);
    },
    server: (dir, port) => ({
      args: [
        join(process.env.BENCH_SINTONIA_ROOT ?? root, 'bin/sintonia.mjs'),
        'serve',
        '--service',
        'client-api',
      ],
      env: { ...environment(dir), CLIENT_API_PORT: String(port) },
    }),
    async paths(shape, url, count) {
      const tokens = await signIn(url, data.signedInUsers(shape));
      const headers = (user: number, format: Format = 'json') => ({
        authorization: `Bearer ${tokens.get(user)}`,
        accept: accept(format),
      });
      const routes: Routes = {
        read: (user, content, format) => ({
          method: 'GET',
          path: `${api}/${data.DEVICE_CLASS}/users/${userHashes[user]}/bookmarks/${content}`,
          headers: headers(user, format),
        }),
        // A user's token is for their device 0: the save is that device's.
        write: (user, content, offset) => ({
          method: 'POST',
          path: `${api}/${data.DEVICE_CLASS}/${data.deviceId(user, 0)}/users/${userHashes[user]}/bookmarks/${content}/${offset}`,
          headers: headers(user),
        }),
        devices: (user) => ({
          method: 'GET',
          path: `${api}/accounts/${data.accountNumber(user)}/devices`,
          headers: headers(user),
        }),
      };
      const names = ['GET bookmark', 'POST bookmark', `GET devices (${shape.listDevices})`];
      return plans(shape, count, routes, ['json', 'bson', 'ubjson', 'xml'], names);
    },
  };
  return target;
}

/** Each user signs in once through the real route, on their device 0, four at a time; tokens by user. */
async function signIn(url: string, users: number[]): Promise<Map<number, string>> {
  const tokens = new Map<number, string>();
  const queue = [...users];
  const worker = async () => {
    for (let user = queue.shift(); user !== undefined; user = queue.shift()) {
      const response = await fetch(`${url}${api}/auth/${data.DEVICE_CLASS}/users/authenticate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          username: data.email(user),
          password: BENCH_PASSWORD,
          deviceId: data.deviceId(user, 0),
        }),
      });
      const body = (await response.json()) as { tokens?: { accessToken?: string } };
      const token = body.tokens?.accessToken;
      if (response.status !== 200 || !token)
        throw new Error(`sign-in of user ${user}: ${response.status} ${JSON.stringify(body)}`);
      tokens.set(user, token);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return tokens;
}
