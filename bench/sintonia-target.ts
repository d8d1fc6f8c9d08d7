import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Dataset } from './dataset.ts';
import { BENCH_PASSWORD, seedSintonia } from './sintonia-seed.ts';
import type { BenchStore } from './store.ts';
import {
  accept,
  type Format,
  type PathPlan,
  type PoolSetting,
  pickOne,
  picks,
  type Target,
} from './targets.ts';

const basePath = '/api/v1';
const masterKey = randomBytes(32).toString('hex');

/** The environment of both the seeding and the server: same store, same master key. */
function environment(dir: string, databaseUrl: string, pool: PoolSetting): Record<string, string> {
  return {
    SINTONIA_DATA_DIR: join(dir, 'sintonia'),
    SINTONIA_MASTER_KEY: masterKey,
    DATABASE_URL: databaseUrl,
    ...(pool.variable && databaseUrl ? { [pool.variable]: String(pool.size) } : {}),
    SINTONIA_DEMO: '0',
    HOST: '127.0.0.1',
    // The 20-device accounts must be able to hold 20 enabled devices.
    MAX_DEVICES_PER_ACCOUNT: '20',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  };
}

/** The access token in an authenticate answer, wherever the TokensResponse puts it. */
function accessTokenOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  for (const name of ['accessToken', 'access_token']) {
    const value = record[name];
    if (typeof value === 'string') return value;
  }
  for (const value of Object.values(record)) {
    const found = accessTokenOf(value);
    if (found) return found;
  }
  return undefined;
}

/** The signed-in users authenticate once through the real route (scrypt and all), a few at a time; tokens by user index. */
async function authenticateAll(dataset: Dataset, url: string): Promise<string[]> {
  const tokens: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < dataset.keys.users.length; index = next++) {
      const user = dataset.keys.users[index];
      if (!user) continue;
      const response = await fetch(`${url}${basePath}/auth/${dataset.deviceClass}/users/authenticate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ username: user.email, password: BENCH_PASSWORD, deviceId: user.deviceIds[0] }),
      });
      const body = (await response.json()) as unknown;
      const token = accessTokenOf(body);
      if (response.status !== 200 || !token)
        throw new Error(`authenticate ${user.email}: ${response.status} ${JSON.stringify(body)}`);
      tokens[user.index] = token;
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return tokens;
}

/** Seeds the store the environment names with the data set; answers each user's userHash (by index). */
export type SintoniaSeeder = (env: Record<string, string>, dataset: Dataset) => Promise<string[]>;

/**
 * The real client-api on the bench's store: the embedded one, or a database of its own in the cluster.
 * `seed` fills it (the scale run, bench/scale.ts, passes its own); `onDatabase` hears the database's URL.
 */
export function sintoniaTarget(
  store: BenchStore,
  pool: PoolSetting,
  seed: SintoniaSeeder = seedSintonia,
  onDatabase: (url: string) => void = () => {},
): Target {
  let userHashes: string[] = [];
  let databaseUrl = '';
  return {
    name: 'sintonia',
    async seed(dataset, dir) {
      if (store.kind === 'postgres') databaseUrl = await store.createDatabase('bench_sintonia');
      onDatabase(databaseUrl);
      userHashes = await seed({ ...environment(dir, databaseUrl, pool), LOG_LEVEL: 'silent' }, dataset);
    },
    server(dir, port) {
      return {
        // BENCH_SINTONIA_ROOT runs the server of another checkout (a worktree of an older commit, with
        // node_modules linked) against the same data set: before/after figures of one optimisation.
        args: [
          join(process.env.BENCH_SINTONIA_ROOT ?? '.', 'bin/sintonia.mjs'),
          'serve',
          '--service',
          'client-api',
        ],
        env: { ...environment(dir, databaseUrl, pool), CLIENT_API_PORT: String(port) },
        readyPath: '/readyz',
      };
    },
    async paths(dataset, url, count) {
      const started = Date.now();
      const tokens = await authenticateAll(dataset, url);
      process.stderr.write(
        `[bench] sintonia: ${dataset.keys.users.length} users authenticated in ${Date.now() - started} ms\n`,
      );
      const auth = (user: number) => `Bearer ${tokens[user] ?? ''}`;
      const hash = (user: number) => userHashes[user] ?? '';
      const read = (format: Format): PathPlan => ({
        name: `GET bookmark ${format.toUpperCase()}`,
        operation: 'read',
        format,
        requests: picks(count, 1, (random) => {
          const bookmark = pickOne(dataset.keys.bookmarks, random);
          return {
            method: 'GET',
            path: `${basePath}/${dataset.deviceClass}/users/${hash(bookmark.user)}/bookmarks/${bookmark.contentId}`,
            headers: { authorization: auth(bookmark.user), accept: accept[format] },
          };
        }),
      });
      // The four formats of the read back to back, before anything writes: each format's ratio is taken
      // against the JSON read of the same round, so the less time and work between them the better.
      return [
        read('json'),
        read('bson'),
        read('ubjson'),
        read('xml'),
        {
          name: 'POST bookmark',
          operation: 'write',
          format: 'json',
          requests: picks(count, 2, (random) => {
            const user = pickOne(dataset.keys.users, random);
            const device = user.deviceIds[0] ?? '';
            const contentId = 1 + Math.floor(random() * dataset.maxContentId * 2);
            const offset = Math.floor(random() * 7200);
            return {
              method: 'POST',
              path: `${basePath}/${dataset.deviceClass}/${device}/users/${hash(user.index)}/bookmarks/${contentId}/${offset}`,
              headers: { authorization: auth(user.index), accept: accept.json },
            };
          }),
        },
        {
          name: `GET devices (${dataset.size.listDevices})`,
          operation: 'devices',
          format: 'json',
          requests: picks(count, 3, (random) => {
            const user = pickOne(dataset.keys.listUsers, random);
            return {
              method: 'GET',
              path: `${basePath}/accounts/${user.accountNumber}/devices`,
              headers: { authorization: auth(user.index), accept: accept.json },
            };
          }),
        },
      ];
    },
  };
}
