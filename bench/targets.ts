/**
 * The two servers the bench loads on one store, seeded with the same data set and loaded with the same
 * keys: the bare baseline (bench/bare-server.ts) and the real client-api.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { configSchema } from '../src/core/config.ts';
import * as data from './dataset.ts';
import { inBatches, productEnv, root, sendJson, sintoniaBin } from './process.ts';
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

/** How a target spells each operation's path for a user, and the headers its requests carry. */
interface Routes {
  names: [read: string, write: string, devices: string];
  formats: Format[];
  read(user: number, content: number): string;
  write(user: number, content: number, offset: number, device: number): string;
  devices(user: number): string;
  headers?(user: number, format: Format): Record<string, string>;
}

/**
 * Each path's `count` requests, from a seeded generator (both targets get the same keys; each format's reads
 * the same): reads of the signed-in users' bookmarks (the formats back to back, before anything writes),
 * saves of contents of which about half exist, device lists of the signed-in users with `listDevices` devices.
 */
function plans(shape: data.Shape, count: number, routes: Routes): PathPlan[] {
  const users = data.signedInUsers(shape);
  type Path = (user: number, pick: (n: number) => number) => string;
  const plan = (name: string, operation: Operation, format: Format, among: number[], path: Path) => {
    const random = data.seededRandom(['read', 'write', 'devices'].indexOf(operation) + 1);
    const pick = (n: number) => Math.floor(random() * n);
    const method = operation === 'write' ? 'POST' : 'GET';
    const requests = Array.from({ length: count }, () => {
      const user = among[pick(among.length)] ?? 0;
      return { method, path: path(user, pick), headers: routes.headers?.(user, format) };
    });
    return { name, operation, format, requests };
  };
  const [read, write, devices] = routes.names;
  const readOf = (user: number, pick: (n: number) => number) =>
    routes.read(user, data.contentOf(user, pick(shape.bookmarksPerUser)));
  const listUsers = users.filter((user) => user < shape.listAccounts);
  const readName = (format: Format) => (routes.formats.length > 1 ? `${read} ${format.toUpperCase()}` : read);
  return [
    ...routes.formats.map((format) => plan(readName(format), 'read', format, users, readOf)),
    plan(write, 'write', 'json', users, (user, pick) => {
      const device = pick(data.devicesOf(shape, user));
      return routes.write(user, 1 + pick(data.maxContent(shape)), pick(7200), device);
    }),
    plan(devices, 'devices', 'json', listUsers, routes.devices),
  ];
}

/** Fastify on better-sqlite3, or on a node-postgres pool of the product's size; no auth, JSON only. */
export function bareTarget(store: BenchStore): Target {
  const routes: Routes = {
    names: ['bare read', 'bare upsert', 'bare device list'],
    formats: ['json'],
    read: (user, content) => `/bookmarks/${bareUserHash(user)}/${content}`,
    write: (user, content, offset, device) =>
      `/bookmarks/${data.accountNumber(user)}/${data.DEVICE_CLASS}/${data.deviceId(user, device)}/${bareUserHash(user)}/${content}/${offset}`,
    devices: (user) => `/accounts/${data.accountNumber(user)}/devices`,
  };
  const file = (dir: string) => target.databaseUrl ?? join(dir, 'bare.sqlite');
  const target: Target = {
    name: 'bare',
    async seed(shape, dir) {
      if (store.kind === 'postgres') target.databaseUrl = await store.createDatabase('bench_bare');
      await seedBare(file(dir), shape);
    },
    server: (dir, port) => ({
      // The product's V8 setting (bin/sintonia.mjs), so that both servers collect garbage alike.
      args: ['--no-allocation-site-pretenuring', '--import', 'tsx', join(root, 'bench/bare-server.ts')],
      env: { BENCH_STORE: file(dir), BENCH_POOL_SIZE: String(poolSize()), BENCH_PORT: String(port) },
    }),
    paths: async (shape, _url, count) => plans(shape, count, routes),
  };
  return target;
}

export const api = '/api/v1';
/** The playing device's save, beside the save (`POST bookmark`) and against the same bare upsert. */
export const REPORT_PATH = 'report (PUT playback, then POST)';

/** The real client-api: `sintonia serve --service client-api` of this checkout (or BENCH_SINTONIA_ROOT's). */
export function sintoniaTarget(store: BenchStore): Target {
  const masterKey = randomBytes(32).toString('hex');
  let userHashes: string[] = [];
  const environment = (dir: string) => ({
    ...productEnv(join(dir, 'sintonia'), target.databaseUrl ?? ''),
    SINTONIA_MASTER_KEY: masterKey,
    DATABASE_POOL_SIZE: String(poolSize()),
    // The device-list accounts hold 20 enabled devices; the report's streams stay live however long the run.
    MAX_DEVICES_PER_ACCOUNT: '20',
    PLAYBACK_STALE_AFTER: '86400',
  });
  const target: Target = {
    name: 'sintonia',
    async seed(shape, dir) {
      if (store.kind === 'postgres') target.databaseUrl = await store.createDatabase('bench_sintonia');
      userHashes = await seedSintonia({ ...environment(dir), LOG_LEVEL: 'silent' }, shape);
    },
    server: (dir, port) => ({
      args: [sintoniaBin(), 'serve', '--service', 'client-api'],
      env: { ...environment(dir), CLIENT_API_PORT: String(port) },
    }),
    async paths(shape, url, count) {
      const users = data.signedInUsers(shape);
      // The report's: each user's device 1, which plays (PUT …/playback) before its saves report its stream.
      const playback = (user: number) =>
        `${api}/${data.DEVICE_CLASS}/${data.deviceId(user, 1)}/users/${userHashes[user]}/playback/1`;
      const [tokens, players] = [await signIn(url, users, 0), await signIn(url, users, 1, playback)];
      const bookmarks = (user: number) => `users/${userHashes[user]}/bookmarks`;
      const save = (device: number) => (user: number, content: number, offset: number) =>
        `${api}/${data.DEVICE_CLASS}/${data.deviceId(user, device)}/${bookmarks(user)}/${content}/${offset}`;
      const routes: Routes = {
        names: ['GET bookmark', 'POST bookmark', `GET devices (${shape.listDevices})`],
        formats: ['json', 'bson', 'ubjson', 'xml'],
        read: (user, content) => `${api}/${data.DEVICE_CLASS}/${bookmarks(user)}/${content}`,
        // A user's token is for their device 0: the save is that device's.
        write: save(0),
        devices: (user) => `${api}/accounts/${data.accountNumber(user)}/devices`,
        headers: (user, format) => ({
          authorization: `Bearer ${tokens.get(user)}`,
          accept: `application/${format}`,
        }),
      };
      // The report: the save's keys, its contents moved past the save's (both paths write new rows alike).
      const report = plans(shape, count, {
        ...routes,
        names: ['', REPORT_PATH, ''],
        formats: ['json'],
        write: (user, content, offset) => save(1)(user, content + data.maxContent(shape), offset),
        headers: (user) => ({ authorization: `Bearer ${players.get(user)}`, accept: 'application/json' }),
      });
      return [...plans(shape, count, routes), ...report.filter((plan) => plan.name === REPORT_PATH)];
    },
  };
  return target;
}

/** Each user's token, signed in on their `device` through the real route, 4 at a time; then `play`'s PUT. */
export async function signIn(url: string, users: number[], device: number, play?: (user: number) => string) {
  const signedIn = await inBatches(users.length, 4, async (index) => {
    const user = users[index] ?? 0;
    const route = `${url}${api}/auth/${data.DEVICE_CLASS}/users/authenticate`;
    const deviceId = data.deviceId(user, device);
    const credentials = { username: data.email(user), password: BENCH_PASSWORD, deviceId };
    const answer = await sendJson<{ tokens?: { accessToken?: string } }>(route, undefined, credentials);
    const token = answer.tokens?.accessToken;
    if (!token) throw new Error(`sign-in of user ${user}: ${JSON.stringify(answer)}`);
    if (play) await sendJson(`${url}${play(user)}`, token, undefined, 'PUT');
    return [user, token] as const;
  });
  return new Map(signedIn);
}
