/**
 * `npm run bench [-- --database sqlite|postgres|both] [--database-url URL] [--only http|channel]
 * [--quick] [--rounds N] [--duration S] [--warmup S] [--connections N] [--paths WORDS] [--all-formats]
 * [--targets bare,sintonia] [--skip-codecs] [--streams N] [--idle S] [--answers N] [--pin] [--bare-pipelined]
 * [--tracing] [--out FILE]`, or `npm run bench -- --scale N [--pgbench S]` for the data set at 1× and N× (bench/scale.ts)
 *
 * On each store asked for (the embedded SQLite store; PostgreSQL on a throwaway cluster started from the
 * machine's binaries, or on the cluster `--database-url` names):
 * - HTTP (bench/http-bench.ts): the bare baseline and the real client-api, every hot path under load;
 *   ours beside bare, and the targets met or not.
 * - Channel (bench/channel.ts): the embedded Direct Line channel's answer latency (across two processes
 *   on PostgreSQL) and the cost of N idle streams.
 *
 * `--pin` (two CPUs or more) runs every server under test on CPU 0 and everything else (the load generator,
 * PostgreSQL, this process) on CPU 1: the servers then compete with nothing, and a ratio moves by a few
 * hundredths between runs instead of about ±0.15 on a 2-core machine. The unpinned run is the default: it
 * is how the targets were first measured.
 *
 * `--tracing` runs the servers with OpenTelemetry on, exporting (OTLP/HTTP) to a sink in this process that
 * accepts and drops the spans: what tracing costs, beside a run without it.
 *
 * The figures are written as JSON to `--out FILE`, by default to `data/bench/` of this checkout
 * (`bench-<date>.json`, or `quick.json` for `--quick`): the git-ignored data folder, because
 * measurements belong to the machine and the moment that made them, not to the source tree.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { configSchema } from '../src/core/config.ts';
import { type ChannelResult, runChannelBench } from './channel.ts';
import { type Dataset, fullSize, generateDataset, quickSize } from './dataset.ts';
import { channelGoals, comparisons, type GoalCheck, httpGoals } from './goals.ts';
import { runHttpBench } from './http-bench.ts';
import { root, startSpanSink } from './process.ts';
import {
  type CodecRow,
  formatChannel,
  formatCodecTable,
  formatComparison,
  formatGoals,
  formatTable,
  type PathResult,
} from './report.ts';
import { type BenchStore, type DatabaseKind, postgresStore, sqliteStore } from './store.ts';
import { bareTarget, type Format, type PoolSetting, type Target } from './targets.ts';

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '50' },
    paths: { type: 'string' },
    out: { type: 'string' },
    rounds: { type: 'string' },
    targets: { type: 'string', default: 'bare,sintonia' },
    streams: { type: 'string' },
    idle: { type: 'string' },
    answers: { type: 'string' },
    'skip-codecs': { type: 'boolean', default: false },
    'all-formats': { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    'bare-pipelined': { type: 'boolean', default: false },
    tracing: { type: 'boolean', default: false },
    scale: { type: 'string' },
    pgbench: { type: 'string' },
  },
});

if (values.tracing) await startSpanSink();

// --pin: this process (and so the load generator and the PostgreSQL cluster it starts) moves to CPU 1 by
// running itself again under taskset; startServer (process.ts) puts each server on CPU 0.
if (values.pin && process.env.BENCH_PINNED !== '1') {
  if (cpus().length < 2) throw new Error('--pin needs two CPUs or more');
  const again = spawnSync(
    'taskset',
    ['-c', '1', process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_PINNED: '1' },
    },
  );
  if (again.error) throw new Error(`--pin runs taskset (util-linux): ${again.error.message}`);
  process.exit(again.status ?? 1);
}

// --bare-pipelined: the bare PostgreSQL baseline runs its statements pipelined over as many connections as
// the product's DATABASE_PIPELINE_CONNECTIONS (bench/baseline/pg-server.ts), not on its pool: the ratios
// then compare the rest of the request. The targets are defined against the pooled baseline.
if (values['bare-pipelined']) {
  const declared = (configSchema.properties as Record<string, { default?: unknown }>)
    .DATABASE_PIPELINE_CONNECTIONS?.default;
  process.env.BENCH_BARE_PIPELINE = process.env.DATABASE_PIPELINE_CONNECTIONS ?? String(declared ?? 2);
}

function choice<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T[] {
  if (value === undefined) return [...allowed];
  if (value === 'both' || value === 'all') return [...allowed];
  if (!allowed.includes(value as T)) throw new Error(`--${name} takes ${allowed.join(', ')} or both`);
  return [value as T];
}

const quick = values.quick === true;
const databases = choice<DatabaseKind>('database', values.database, ['sqlite', 'postgres']);
const parts = choice('only', values.only, ['http', 'channel'] as const);
const number = (value: string | undefined, fallback: number) => Number(value ?? fallback);
/** The product's keep-alive interval, unless the environment sets another for this run. */
const keepAliveMs = quick ? 1000 : number(process.env.DIRECTLINE_KEEPALIVE_MS, 15_000);
const settings = {
  http: {
    rounds: number(values.rounds, 1),
    connections: Number(values.connections),
    warmupSeconds: number(values.warmup, quick ? 0 : 1),
    durationSeconds: number(values.duration, quick ? 1 : 5),
    requestsPerPlan: quick ? 500 : 20_000,
    only: values.paths?.split(',').map((part) => part.trim().toLowerCase()),
  },
  channel: {
    samples: number(values.answers, quick ? 3 : 20),
    streams: number(values.streams, quick ? 20 : 2000),
    // A whole number of keep-alive rounds: any window of k intervals holds exactly k of them.
    idleSeconds: number(values.idle, (2 * keepAliveMs) / 1000),
    keepAliveMs,
  },
};

/**
 * The product's PostgreSQL pool: its size variable when the configuration has one (the bench sets it, and
 * the bare pool gets the same size), else the fixed size of src/core/db/database.ts.
 */
function poolSetting(): PoolSetting {
  const variable = Object.keys(configSchema.properties).find((name) => /^DATABASE_POOL/.test(name));
  const fixedSize = 10;
  if (!variable) return { size: fixedSize };
  const declared = (configSchema.properties as Record<string, { default?: unknown }>)[variable]?.default;
  return {
    size: number(process.env[variable], typeof declared === 'number' ? declared : fixedSize),
    variable,
  };
}

interface StoreReport {
  database: DatabaseKind;
  label: string;
  http?: { results: PathResult[] };
  channel?: ChannelResult;
  goals: GoalCheck[];
}

async function benchStore(store: BenchStore, dataset: Dataset, dir: string): Promise<StoreReport> {
  const report: StoreReport = { database: store.kind, label: store.label, goals: [] };
  if (parts.includes('http')) {
    const pool = poolSetting();
    const targets: Target[] = [];
    const wanted = (values.targets ?? '').split(',');
    if (wanted.includes('bare')) targets.push(bareTarget(store, pool));
    if (wanted.includes('sintonia'))
      targets.push((await import('./sintonia-target.ts')).sintoniaTarget(store, pool));
    // The other formats' cost is the codecs', the same on either store: PostgreSQL loads JSON only.
    const formats = store.kind === 'postgres' && !values['all-formats'] ? (['json'] as Format[]) : undefined;
    const results = await runHttpBench(targets, dataset, dir, {
      ...settings.http,
      formats,
      label: store.label,
      databaseCpuMs: () => store.cpuMs(),
    });
    report.http = { results };
    report.goals.push(...httpGoals(store.kind, results));
    const bare =
      store.kind === 'postgres' && values['bare-pipelined']
        ? `; bare pipelined over ${process.env.BENCH_BARE_PIPELINE} connections as ours`
        : '';
    process.stdout.write(
      `\n=== ${store.label}: HTTP${store.kind === 'postgres' ? ` (pools of ${pool.size}${pool.variable ? `, ${pool.variable}` : ''}${bare})` : ''} ===\n`,
    );
    process.stdout.write(
      `${formatTable(results)}\n\nours beside bare, same run:\n${formatComparison(comparisons(results))}\n`,
    );
  }
  if (parts.includes('channel')) {
    const channel = await runChannelBench(store, dir, { ...settings.channel, label: store.label });
    report.channel = channel;
    report.goals.push(...channelGoals(channel));
    process.stdout.write(`\n=== ${store.label}: channel ===\n${formatChannel(channel)}\n`);
  }
  process.stdout.write(`\n=== ${store.label}: targets ===\n${formatGoals(report.goals)}\n`);
  return report;
}

/** The media-types engineer's codec micro-benchmark, when it exists: encode+decode of a 20-device list. */
async function codecRows(): Promise<CodecRow[] | undefined> {
  const file = join(root, 'bench', 'codecs.ts');
  if (!existsSync(file)) return undefined;
  const module = (await import(file)) as { runCodecBench?: (options?: { quick?: boolean }) => unknown };
  if (typeof module.runCodecBench !== 'function') return undefined;
  const rows = await module.runCodecBench({ quick });
  return Array.isArray(rows) ? (rows as CodecRow[]) : [{ result: JSON.stringify(rows) }];
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

// --scale N: the read, save and device list at 1× and N× data, and pgbench's ceiling (bench/scale.ts).
if (values.scale !== undefined) {
  const { scaleCommand } = await import('./scale.ts');
  await scaleCommand({
    factor: Number(values.scale),
    quick,
    databases,
    databaseUrl: values['database-url'],
    pool: poolSetting(),
    connections: settings.http.connections,
    warmupSeconds: settings.http.warmupSeconds,
    durationSeconds: settings.http.durationSeconds,
    requestsPerPlan: settings.http.requestsPerPlan,
    pgbenchSeconds: number(values.pgbench, quick ? 1 : 10),
    only: settings.http.only,
    rounds: settings.http.rounds,
    out: values.out,
  });
  process.exit(process.exitCode ?? 0);
}

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'sintonia-bench-'));
try {
  const dataset = generateDataset(quick ? quickSize : fullSize);
  const stores: StoreReport[] = [];
  for (const kind of databases) {
    const store = kind === 'sqlite' ? sqliteStore : await postgresStore(values['database-url']);
    try {
      stores.push(await benchStore(store, dataset, dir));
    } finally {
      await store.close();
    }
  }
  // The codecs do not touch the store: measured on the SQLite-only run, where they have always been.
  const codecsWanted = !values['skip-codecs'] && parts.includes('http') && !databases.includes('postgres');
  const codecs = codecsWanted ? await codecRows() : undefined;
  if (codecs) process.stdout.write(`\ncodecs (bench/codecs.ts):\n${formatCodecTable(codecs)}\n`);
  else if (databases.includes('postgres') && parts.includes('http'))
    process.stdout.write(
      '\ncodecs: not run with PostgreSQL (node --import tsx bench/codecs.ts runs them alone)\n',
    );

  const cpu = cpus();
  const report = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', node: process.version },
    settings: {
      quick,
      databases,
      parts,
      pinned: process.env.BENCH_PINNED === '1',
      barePipelinedConnections: Number(process.env.BENCH_BARE_PIPELINE ?? '0'),
      ...settings,
    },
    dataset: {
      users: dataset.users.length,
      devices: dataset.users.reduce((sum, user) => sum + user.deviceIds.length, 0),
      bookmarks: dataset.bookmarks.length,
      deviceListSize: dataset.size.listDevices,
      signedInUsers: dataset.keys.users.length,
      readKeys: dataset.keys.bookmarks.length,
    },
    stores,
    codecs,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  const out =
    values.out ??
    join(root, 'data', 'bench', quick ? 'quick.json' : `bench-${report.date.replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${report.seconds} s in all; written to ${out}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
