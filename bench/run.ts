/**
 * `npm run bench` (docs/benchmarks.md: what each part measures, the floors, the options): on each store
 * asked for, each part, then the codecs. The figures go as JSON to `--out FILE`, by default to
 * `data/bench/` of this checkout (git-ignored: they belong to the machine and the moment).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { runChannelBench } from './channel.ts';
import { runCodecBench } from './codecs.ts';
import { runCommandBench } from './commands.ts';
import { fullShape, quickShape } from './dataset.ts';
import { type PathResult, runHttpBench } from './http-bench.ts';
import { type PgbenchRate, runPgbench } from './pgbench.ts';
import { root, startSpanSink } from './process.ts';
import { check, type FloorCheck, formatColumns, formatFloors, formatPaths } from './report.ts';
import { formatScale, runScaleBench, type ScaleRun, scaleFloors } from './scale.ts';
import { type BenchStore, type DatabaseKind, postgresStore, sqliteStore } from './store.ts';
import { formatStreams, type StreamResult, streamFloors } from './streams.ts';
import { bareTarget, poolSize, REPORT_PATH, sintoniaTarget } from './targets.ts';

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '1' },
    duration: { type: 'string' },
    paths: { type: 'string' },
    streams: { type: 'string' },
    scale: { type: 'string' },
    pgbench: { type: 'string' },
    tracing: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

// --pin: this process (the load generator, and the PostgreSQL cluster it starts) moves to CPU 1 by running
// itself again under taskset; startServer (process.ts) puts each server on CPU 0.
if (values.pin && process.env.BENCH_PINNED !== '1') {
  if (cpus().length < 2) throw new Error('--pin needs two CPUs or more');
  const argv = ['-c', '1', process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  const again = spawnSync('taskset', argv, { stdio: 'inherit', env: { ...process.env, BENCH_PINNED: '1' } });
  if (again.error) throw new Error(`--pin runs taskset (util-linux): ${again.error.message}`);
  process.exit(again.status ?? 1);
}
if (values.tracing) await startSpanSink();

const quick = values.quick;
const number = (value: string | undefined, fallback: number) => Number(value ?? fallback);
const databases = (values.database === 'both' ? ['sqlite', 'postgres'] : [values.database]) as DatabaseKind[];
if (!databases.every((kind) => kind === 'sqlite' || kind === 'postgres'))
  throw new Error('--database takes sqlite, postgres or both');
const factor = values.scale === undefined ? undefined : Number(values.scale);
if (factor !== undefined && !(Number.isInteger(factor) && factor >= 1))
  throw new Error('--scale takes a whole factor of 1 or more');
const parts = values.only?.split(',') ?? ['http', 'channel', 'commands', ...(factor ? ['scale'] : [])];
const shape = quick ? quickShape : fullShape;
const http = {
  rounds: Number(values.rounds),
  // The quick run checks the bench, not the machine: fewer connections, no queue of 10-second timeouts.
  connections: quick ? 10 : 50,
  warmupSeconds: quick ? 0 : 1,
  durationSeconds: number(values.duration, quick ? 1 : 5),
  requestsPerPlan: quick ? 500 : 20_000,
  only: values.paths?.split(',').map((word) => word.trim().toLowerCase()),
};
// The stream parts' keep-alive intervals (seconds): the product's, unless the environment sets others.
const streamPart = (streams: number, keepAliveSeconds: number) => ({
  samples: quick ? 3 : 20,
  streams: number(values.streams, quick ? 20 : streams),
  keepAliveSeconds: quick ? 1 : keepAliveSeconds,
});
const channel = streamPart(2000, number(process.env.DIRECTLINE_KEEPALIVE_MS, 15_000) / 1000);
const commands = streamPart(15_000, number(process.env.COMMAND_STREAM_KEEPALIVE, 25));
const pgbenchSeconds = number(values.pgbench, quick ? 1 : 10);

/** Ours over bare that each store must reach, per operation (docs/benchmarks.md, "Floors"). */
const floorsOf = {
  sqlite: { read: 0.85, write: 0.9, devices: undefined },
  postgres: { read: 1.1, write: 1.0, devices: 0.9 },
} as const;

interface StoreReport {
  database: DatabaseKind;
  label: string;
  http?: { results: PathResult[]; pgbench?: PgbenchRate[] };
  channel?: StreamResult;
  commands?: StreamResult;
  scale?: ScaleRun[];
  floors: FloorCheck[];
}

function httpFloors(kind: DatabaseKind, results: PathResult[], pgbench?: PgbenchRate[]): FloorCheck[] {
  const ours = results.filter((result) => result.target === 'sintonia');
  const json = ours.filter((result) => result.format === 'json');
  const report = json.find((result) => result.name === REPORT_PATH);
  const checks = json.flatMap((result) => {
    const floor = result === report ? undefined : floorsOf[kind][result.operation];
    return floor === undefined ? [] : [check(`${result.name} ≥ ${floor}× bare`, result.ratioToBare, floor)];
  });
  for (const result of ours.filter((r) => r.format !== 'json'))
    checks.push(check(`${result.name} ≥ 0.85× JSON`, result.ratioToJson, 0.85));
  const upsert = pgbench?.find((rate) => rate.statement === 'upsert');
  const save = json.find((result) => result.operation === 'write');
  if (upsert && save)
    checks.push(check("save ≥ 0.6× pgbench's upsert", save.requestsPerSecond / upsert.rate, 0.6));
  if (report && save)
    checks.push(check('report ≥ 1× the save', report.requestsPerSecond / save.requestsPerSecond, 1));
  return checks;
}

const printSection = (title: string, text: string) => process.stdout.write(`\n=== ${title} ===\n${text}\n`);

async function benchStore(store: BenchStore, dir: string): Promise<StoreReport> {
  const report: StoreReport = { database: store.kind, label: store.label, floors: [] };
  const print = (title: string, text: string) => printSection(`${store.label}: ${title}`, text);
  if (parts.includes('http')) {
    const targets = [bareTarget(store), sintoniaTarget(store)];
    for (const target of targets) await target.seed(shape, dir);
    const results = await runHttpBench(targets, shape, dir, { ...http, label: store.label });
    const bareUrl = pgbenchSeconds > 0 ? targets[0]?.databaseUrl : undefined;
    const pgbench = bareUrl ? await runPgbench(bareUrl, shape, poolSize(), pgbenchSeconds) : undefined;
    report.http = { results, pgbench }; // JSON leaves out an undefined pgbench
    report.floors.push(...httpFloors(store.kind, results, pgbench));
    const pools = store.kind === 'postgres' ? ` (pools of ${poolSize()})` : '';
    const rates = pgbench?.map((rate) => `${rate.statement} ${Math.round(rate.rate)}/s`).join(', ');
    const ceiling = rates ? `\n\npgbench, the bare statements, one per round trip: ${rates}` : '';
    print(`HTTP${pools}`, `${formatPaths(results)}${ceiling}`);
  }
  for (const [part, run, settings, ms, kib, title] of [
    ['channel', runChannelBench, channel, 250, 64, 'channel'],
    ['commands', runCommandBench, commands, 50, 16, 'command streams'],
  ] as const) {
    if (!parts.includes(part)) continue;
    const result = await run(store, dir, { ...settings, label: store.label });
    report[part] = result;
    report.floors.push(...streamFloors(result, ms, kib));
    print(title, formatStreams(result));
  }
  if (parts.includes('scale') && factor) {
    report.scale = await runScaleBench(store, shape, factor, dir, { ...http, label: store.label });
    report.floors.push(...scaleFloors(report.scale));
    print(`scale ${factor}×`, formatScale(report.scale));
  }
  print('floors', formatFloors(report.floors));
  return report;
}

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'sintonia-bench-'));
try {
  const stores: StoreReport[] = [];
  for (const kind of databases) {
    const store = kind === 'sqlite' ? sqliteStore : await postgresStore(values['database-url']);
    try {
      stores.push(await benchStore(store, dir));
    } finally {
      await store.close();
    }
  }
  const codecs = parts.includes('http') ? await runCodecBench({ quick }) : undefined;
  const table = codecs && formatColumns(Object.keys(codecs[0] ?? {}), codecs.map(Object.values));
  if (table) printSection('codecs: a 20-device list, encode + decode', table);
  const [cpu, pinned] = [cpus(), process.env.BENCH_PINNED === '1'];
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  const report = {
    date: new Date().toISOString(),
    commit: git.stdout?.trim() || 'unknown',
    machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', node: process.version },
    settings: { quick, databases, parts, pinned, http, channel, commands, factor, shape },
    stores,
    codecs,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  const name = quick ? 'quick.json' : `bench-${report.date.replace(/[:.]/g, '-')}.json`;
  const out = values.out ?? join(root, 'data', 'bench', name);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${report.seconds} s in all; written to ${out}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
