/**
 * `npm run bench -- --scale N [--database sqlite|postgres|both] [--pgbench S]`: the real client-api's
 * read, save and device list on the bench's data set at 1× and at N× (bench/scale-seed.ts), in the same
 * run, on each store asked for, the load's keys spread over all users (1,000 of them signed in through the
 * real route, evenly spaced over the whole set; every user at 1×). Reports each path's req/s, p50 and p99
 * at both sizes and their ratios, the seeding time, the tables' and indexes' sizes and, on PostgreSQL,
 * pgbench running our save and read on the same cluster (bench/pgbench.ts) with our rate as a fraction.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { configSchema } from '../src/core/config.ts';
import { type DatasetSize, fullSize, quickSize } from './dataset.ts';
import { runHttpBench } from './http-bench.ts';
import { type PgbenchResult, runPgbench } from './pgbench.ts';
import { root } from './process.ts';
import { formatColumns, type PathResult } from './report.ts';
import { type ScaledSeed, scaledDataset, scaledSize, seedScaled } from './scale-seed.ts';
import { sintoniaTarget } from './sintonia-target.ts';
import { type BenchStore, postgresStore, sqliteStore } from './store.ts';
import type { PoolSetting } from './targets.ts';

export interface ScaleSettings {
  factor: number;
  quick: boolean;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  requestsPerPlan: number;
  /** Seconds of each pgbench run (0: none); PostgreSQL only. */
  pgbenchSeconds: number;
  /** Connections pgbench opens: as many as our process gives the hot statements. */
  pgbenchConnections: number;
  /** `--paths`: words of the paths to keep (the smoke test loads one); default the three. */
  only?: string[];
  /** `--rounds`: each path's median round is reported. */
  rounds: number;
}

export interface ScaleRun {
  factor: number;
  users: number;
  devices: number;
  bookmarks: number;
  signedIn: number;
  seedSeconds: number;
  sizes: ScaledSeed['sizes'];
  results: PathResult[];
}

export interface ScaleReport {
  database: string;
  label: string;
  runs: ScaleRun[];
  pgbench?: Array<PgbenchResult & { ours: number; fraction: number }>;
}

const SIGNED_IN = 1000;
const paths = ['get bookmark json', 'post bookmark', 'get devices'];

export async function runScaleBench(
  store: BenchStore,
  pool: PoolSetting,
  dir: string,
  settings: ScaleSettings,
): Promise<ScaleReport> {
  const base: DatasetSize = settings.quick ? quickSize : fullSize;
  const report: ScaleReport = { database: store.kind, label: store.label, runs: [] };
  let lastUrl = '';
  for (const factor of [1, settings.factor]) {
    const size = scaledSize(base, factor, settings.quick ? base.signedIn : SIGNED_IN);
    const dataset = scaledDataset(size, base);
    let seeded: ScaledSeed | undefined;
    const target = sintoniaTarget(
      store,
      pool,
      async (env) => {
        seeded = await seedScaled(env, size);
        return seeded.userHashes;
      },
      (url) => {
        lastUrl = url;
      },
    );
    const runDir = join(dir, `scale-${factor}`);
    mkdirSync(runDir, { recursive: true });
    const results = await runHttpBench([target], dataset, runDir, {
      rounds: settings.rounds,
      connections: settings.connections,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
      requestsPerPlan: settings.requestsPerPlan,
      only: settings.only ?? paths,
      formats: ['json'],
      label: `${store.label} ${factor}×`,
    });
    if (!seeded) throw new Error('the scale seeder did not run');
    report.runs.push({
      factor,
      users: size.users,
      devices: size.devices,
      bookmarks: size.bookmarks,
      signedIn: size.signedIn,
      seedSeconds: Math.round(seeded.seconds * 10) / 10,
      sizes: seeded.sizes,
      results,
    });
  }
  if (store.kind === 'postgres' && settings.pgbenchSeconds > 0) {
    const largest = report.runs.at(-1);
    const ours = (operation: string) =>
      largest?.results.find((result) => result.operation === operation)?.requestsPerSecond ?? 0;
    const rates = await runPgbench(lastUrl, settings.pgbenchConnections, settings.pgbenchSeconds);
    report.pgbench = rates.map((rate) => {
      const mine = ours(rate.statement.includes('save') ? 'write' : 'read');
      return { ...rate, ours: mine, fraction: rate.rate > 0 ? mine / rate.rate : 0 };
    });
  }
  return report;
}

const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '');

export function formatScale(report: ScaleReport): string {
  const [small, large] = report.runs;
  const lines: string[] = [];
  for (const run of report.runs)
    lines.push(
      `${run.factor}×: ${run.users} users, ${run.devices} devices, ${run.bookmarks} bookmarks, keys over ${run.signedIn} signed-in users spread over all; seeded in ${run.seedSeconds} s`,
    );
  if (small && large) {
    const rows = small.results.map((one) => {
      const many = large.results.find((result) => result.name === one.name);
      return [
        one.name,
        Math.round(one.requestsPerSecond).toString(),
        one.p50.toString(),
        one.p99.toString(),
        many ? Math.round(many.requestsPerSecond).toString() : '',
        many ? many.p50.toString() : '',
        many ? many.p99.toString() : '',
        many ? fixed(many.requestsPerSecond / one.requestsPerSecond) : '',
        many ? fixed(many.p99 / one.p99) : '',
        `${one.serverCpuUsPerRequest ?? ''}/${many?.serverCpuUsPerRequest ?? ''}`,
      ];
    });
    const n = `${large.factor}×`;
    lines.push(
      '',
      formatColumns(
        [
          'path',
          '1× req/s',
          '1× p50',
          '1× p99',
          `${n} req/s`,
          `${n} p50`,
          `${n} p99`,
          'req/s ratio',
          'p99 ratio',
          'CPU µs/req 1×/N×',
        ],
        rows,
      ),
    );
  }
  const sizeRows = report.runs.flatMap((run) =>
    Object.entries(run.sizes).map(([table, size]) => [
      `${run.factor}×`,
      table,
      size.rows.toString(),
      mib(size.tableBytes),
      mib(size.indexBytes),
    ]),
  );
  lines.push('', formatColumns(['set', 'table', 'rows', 'table MiB', 'indexes MiB'], sizeRows));
  if (report.pgbench) {
    const rows = report.pgbench.map((rate) => [
      rate.statement,
      rate.pipelined ? 'pipelined' : 'one per round trip',
      rate.connections.toString(),
      Math.round(rate.rate).toString(),
      Math.round(rate.ours).toString(),
      fixed(rate.fraction),
    ]);
    lines.push(
      '',
      `pgbench on the ${large?.factor ?? 1}× database, same cluster:`,
      formatColumns(
        ['statement', 'pgbench', 'connections', 'pgbench stmt/s', 'ours req/s', 'ours / pgbench'],
        rows,
      ),
    );
  }
  return lines.join('\n');
}

export interface ScaleCommand {
  factor: number;
  quick: boolean;
  databases: Array<'sqlite' | 'postgres'>;
  databaseUrl: string | undefined;
  pool: PoolSetting;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  requestsPerPlan: number;
  pgbenchSeconds: number;
  only?: string[];
  rounds: number;
  out: string | undefined;
}

/** `--scale N`: each store in turn, the report printed and written as JSON (data/bench/ by default). */
export async function scaleCommand(command: ScaleCommand): Promise<void> {
  if (!Number.isInteger(command.factor) || command.factor < 1)
    throw new Error('--scale takes a whole factor of 1 or more');
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sintonia-scale-'));
  const declared = (configSchema.properties as Record<string, { default?: unknown }>)
    .DATABASE_PIPELINE_CONNECTIONS?.default;
  const pipelined = Number(process.env.DATABASE_PIPELINE_CONNECTIONS ?? declared ?? 2);
  const reports: ScaleReport[] = [];
  try {
    for (const kind of command.databases) {
      const store = kind === 'sqlite' ? sqliteStore : await postgresStore(command.databaseUrl);
      try {
        const report = await runScaleBench(store, command.pool, dir, {
          ...command,
          pgbenchConnections: pipelined > 0 ? pipelined : command.pool.size,
        });
        reports.push(report);
        process.stdout.write(`\n=== ${store.label}: scale ${command.factor}× ===\n${formatScale(report)}\n`);
      } finally {
        await store.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpu = cpus();
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', node: process.version },
    settings: command,
    stores: reports,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  const out =
    command.out ??
    join(root, 'data', 'bench', `scale-${command.factor}-${report.date.replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${report.seconds} s in all; written to ${out}\n`);
}
