import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import pg from 'pg';
import type { KeyClass } from '../../src/core/api-keys/api-keys.ts';
import { loadConfig } from '../../src/core/config.ts';
import { type Core, createLogger, openCore, type ServiceName } from '../../src/core/core.ts';
import { type App, buildServiceApp, type ServiceDefinition } from '../../src/core/http/service-app.ts';
import { type RunningFamily, services, startFamily } from '../../src/family.ts';

export type Env = Record<string, string | undefined>;

/** Which database this run covers: set by scripts/test.mjs (SQLite unless told otherwise). */
export const testDatabase = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface TestCore extends Core {
  /** The environment the core was configured from, for starting a second process on the same store. */
  env: Env;
  dispose(): Promise<void>;
}

/**
 * A core on a store of its own: a fresh SQLite folder, or a fresh database in the throwaway PostgreSQL
 * cluster of the test run. Ports are 0 (free ports), logs silent unless TEST_LOG_LEVEL is set.
 */
export async function createTestCore(overrides: Env = {}): Promise<TestCore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sintonia-test-'));
  const database = process.env.TEST_DATABASE_URL ? await createTestDatabase() : undefined;
  const databaseUrl = database?.url;
  const dropDatabase = async () => database?.drop();
  const env: Env = {
    HOST: '127.0.0.1',
    CLIENT_API_PORT: '0',
    ASSISTANT_AUTH_PORT: '0',
    AGENTS_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SINTONIA_DATA_DIR: dataDir,
    SINTONIA_MASTER_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl,
    // A ceiling for a loaded test machine, not production's 3 s: a call between the family's services (the
    // agents to client-api, client-api to assistant-auth's keys) must not fail a test because the machine
    // was busy. Tests of the timeout set their own.
    SUBSYSTEM_TIMEOUT_MS: '30000',
    ...overrides,
  };
  const core = await openCore(loadConfig(env as NodeJS.ProcessEnv));
  return Object.assign(core, {
    env,
    async dispose() {
      await core.close();
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/** A fresh, empty database in the throwaway PostgreSQL cluster of the test run (TEST_DATABASE_URL). */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = String(process.env.TEST_DATABASE_URL);
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** One service app built exactly as production builds it (or a service a test defines), for `app.inject`. */
export async function createTestApp(
  service: ServiceName | ServiceDefinition,
  overrides: Env = {},
): Promise<{ app: App; core: TestCore; close(): Promise<void> }> {
  const core = await createTestCore(overrides);
  let app: App;
  try {
    app = await buildServiceApp(core, typeof service === 'string' ? services[service] : service);
    await app.ready();
  } catch (error) {
    // A service that refuses to start leaves no open connection behind (the test process must end).
    await core.dispose();
    throw error;
  }
  return {
    app,
    core,
    async close() {
      await app.close();
      await core.dispose();
    },
  };
}

/**
 * For the calling suite: one service app (of the family, or one a test defines) and an API key of each class
 * asked for (none: `[]`), made before its tests and closed after them. Read inside the tests: `app`, `core`,
 * `key(keyClass)` and `headers` (the first class's key as X-API-Key).
 */
export function suiteApp(
  service: ServiceName | ServiceDefinition,
  keyClasses: KeyClass | KeyClass[],
  overrides: Env = {},
) {
  const name = typeof service === 'string' ? service : 'service';
  const classes = Array.isArray(keyClasses) ? keyClasses : [keyClasses];
  let made: Awaited<ReturnType<typeof createTestApp>> | undefined;
  const keys = new Map<KeyClass, string>();
  before(async () => {
    made = await createTestApp(service, overrides);
    for (const keyClass of classes) {
      keys.set(keyClass, (await made.core.apiKeys.create(keyClass, `${name} test (${keyClass})`)).key);
    }
  });
  after(() => made?.close());
  const ready = () => {
    if (made === undefined) throw new Error("suiteApp: read inside a test, after the suite's before()");
    return made;
  };
  const key = (keyClass = classes[0]) => {
    const value = keyClass === undefined ? undefined : keys.get(keyClass);
    if (value === undefined) throw new Error(`suiteApp: no ${keyClass} key was asked for`);
    return value;
  };
  return {
    get app(): App {
      return ready().app;
    },
    get core(): TestCore {
      return ready().core;
    },
    key,
    get headers(): Record<string, string> {
      return { 'x-api-key': key() };
    },
  };
}

/** The real servers on free ports, for end-to-end tests over HTTP. */
export async function startTestFamily(
  names: ServiceName[],
  overrides: Env = {},
): Promise<{ family: RunningFamily; core: TestCore; close(): Promise<void> }> {
  const core = await createTestCore(overrides);
  const family = await startFamily(core, names).catch(async (error: unknown) => {
    await core.dispose();
    throw error;
  });
  return {
    family,
    core,
    async close() {
      await family.close();
      await core.dispose();
    },
  };
}

/**
 * The production logger (same redaction) at info level (or `level`), writing into memory: `lines` holds every line
 * parsed, in order, for tests of what the services log.
 */
export function capturingLogger(level: 'info' | 'debug' = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ LOG_LEVEL: level }, sink) };
}
