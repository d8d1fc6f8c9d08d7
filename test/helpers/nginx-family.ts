import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresBin } from '../../scripts/pg-cluster.mjs';
import { createTestDatabase, testDatabase } from './harness.ts';
import { HOUSEHOLD_PASSWORD } from './household.ts';
import { NGINX, startNginx } from './nginx.ts';
import { freePort, runCli, startServe } from './processes.ts';
import { until } from './until.ts';

const shipped = fileURLToPath(new URL('../../deploy/nginx/sintonia.conf', import.meta.url));

/** Each process's ports in the shipped file (client-api, assistant-auth, agents). */
export const SHIPPED_PORTS = [
  [18080, 18081, 18082],
  [28080, 28081, 28082],
];

/** Why a test of the production shape cannot run on this pass or machine, or false. */
export function nginxFamilySkip(): string | false {
  if (testDatabase !== 'postgres') return 'runs on the PostgreSQL pass';
  if (!postgresBin()) return 'no PostgreSQL server binaries';
  if (!existsSync(NGINX)) return `no ${NGINX} (Debian package nginx; .ci/run installs it)`;
  return false;
}

export interface NginxFamilyOptions {
  /** The scratch folder's prefix in the temporary folder. */
  name: string;
  databaseUrl: string;
  /** The account and its user the CLI makes, as docs/operations.md says (password on standard input). */
  account: string;
  email: string;
  password: string;
  /** Settings beyond the minimum, given nginx's addresses (client-api, assistant-auth, agents). */
  settings?: (urls: string[]) => Record<string, string>;
  /** A ceiling on a process's start (migrations included) on a loaded machine, not a measurement. */
  startMs?: number;
}

type Served = Awaited<ReturnType<typeof startServe>>;

/**
 * The production shape end-to-end tests run: the shipped nginx file (deploy/nginx/sintonia.conf, only its
 * ports changed) in front of two `sintonia serve` processes on one PostgreSQL, with docs/production.md's
 * minimum settings (SINTONIA_DEMO=0, a master key, TRUSTED_PROXIES) plus `settings`, and the store made
 * with the CLI: migrate, the account, its user.
 */
export async function startNginxFamily(options: NginxFamilyOptions) {
  const scratch = mkdtempSync(join(tmpdir(), `sintonia-${options.name}-`));
  const startMs = options.startMs ?? 120_000;
  const map: Record<number, number> = {};
  for (const port of [8080, 8081, 8082, ...SHIPPED_PORTS.flat()]) map[port] = await freePort();
  const nginx = await startNginx(shipped, join(scratch, 'nginx'), map);
  const common: Record<string, string> = {
    DATABASE_URL: options.databaseUrl,
    SINTONIA_MASTER_KEY: randomBytes(32).toString('hex'),
    SINTONIA_DEMO: '0',
    TRUSTED_PROXIES: 'loopback',
    LOG_LEVEL: 'warn',
    ...options.settings?.(nginx.urls),
  };
  /** A CLI command on the store, as an operator types it; its JSON answer. */
  const cli = async (args: string[], input?: string) => {
    const run = await runCli(args, { ...common, SINTONIA_DATA_DIR: join(scratch, 'cli') }, input);
    assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    return JSON.parse(run.stdout || '{}') as Record<string, string>;
  };
  await cli(['migrate']);
  const userHash = (await cli(['account', 'create', '--account-number', options.account])).userHash ?? '';
  await cli(
    ['user', 'create', '--account', options.account, '--email', options.email, '--password-stdin'],
    options.password,
  );

  const envs = SHIPPED_PORTS.map((ports, index) => {
    const dataDir = join(scratch, `process-${index}`);
    mkdirSync(dataDir);
    return {
      ...common,
      SINTONIA_DATA_DIR: dataDir,
      CLIENT_API_PORT: String(map[ports[0] ?? 0]),
      ASSISTANT_AUTH_PORT: String(map[ports[1] ?? 0]),
      AGENTS_PORT: String(map[ports[2] ?? 0]),
    };
  });
  /** Each process's own addresses (client-api, assistant-auth, agents), not through nginx. */
  const directUrls = SHIPPED_PORTS.map((ports) => ports.map((port) => `http://127.0.0.1:${map[port]}`));
  const served: (Served | undefined)[] = [];
  const start = async (index: number) => {
    served[index] = await startServe([], envs[index] ?? {}, directUrls[index] ?? [], startMs);
    await until(
      async () =>
        (await fetch(`${directUrls[index]?.[0]}/readyz`).then((response) => response.status)) === 200
          ? true
          : undefined,
      `process ${index} ready`,
      startMs,
    );
  };
  for (const index of SHIPPED_PORTS.keys()) await start(index);

  return {
    nginx,
    scratch,
    /** The settings both processes and the CLI were given. */
    common,
    envs,
    directUrls,
    userHash,
    cli,
    /** Process `index`'s `serve`, while it runs. */
    served: (index: number) => served[index],
    /** Plain SIGTERM to process `index`; resolves with its exit code. */
    async stopProcess(index: number) {
      const server = served[index];
      served[index] = undefined;
      server?.child.kill('SIGTERM');
      return server?.exited;
    },
    /** Starts process `index` again; resolves once it is ready (/readyz 200). */
    startProcess: start,
    /** Stops both processes and nginx, prints what nginx logged of its upstreams, removes the scratch folder. */
    async stop() {
      for (const server of served) {
        server?.child.kill('SIGTERM');
        await server?.exited;
      }
      // Refused connections are expected during restarts; any other upstream line explains a failure.
      for (const line of nginx.errors().split('\n')) {
        if (line.includes('upstream') && !line.includes('111: Connection refused'))
          process.stdout.write(`# nginx: ${line}\n`);
      }
      await nginx.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export type NginxFamily = Awaited<ReturnType<typeof startNginxFamily>>;

/**
 * startNginxFamily on a database of its own in the test run's PostgreSQL, for `account` and its user
 * `<account>@example.test` (HOUSEHOLD_PASSWORD): its stop() also drops that database.
 */
export async function startNginxHousehold(name: string, account: string): Promise<NginxFamily> {
  const database = await createTestDatabase();
  const family = await startNginxFamily({
    name,
    databaseUrl: database.url,
    account,
    email: `${account}@example.test`,
    password: HOUSEHOLD_PASSWORD,
  }).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  return {
    ...family,
    async stop() {
      await family.stop();
      await database.drop();
    },
  };
}
