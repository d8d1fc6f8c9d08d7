/**
 * `npm run bench [-- --quick] [--rounds N] [--duration S] [--warmup S] [--connections N] [--only a,b]
 * [--out FILE]`
 *
 * Generates the data set, then runs the bare baseline and the real client-api, each alone in its own
 * process in turn, loads every hot path with autocannon (its own process, 127.0.0.1 only, bounded in
 * time) and prints one table. A full run does this in 3 rounds (bare, client-api, bare, client-api…) and
 * reports each path's median round: on a shared 2-core machine one 10 s measure moves by ±30% from one
 * minute to the next.
 *
 * The same figures, with every round's, are written as JSON to `--out FILE`, by default to
 * `data/bench/` of this checkout (`bench-<date>.json`, or `quick.json` for `--quick`): the git-ignored
 * data folder, because measurements belong to the machine and the moment that made them, not to the
 * source tree.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Dataset, fullSize, generateDataset, quickSize } from './dataset.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { freePort, root, runLoadProcess, startServer } from './process.ts';
import {
  addRatios,
  type CodecRow,
  formatCodecTable,
  formatTable,
  medianRounds,
  type PathResult,
} from './report.ts';
import { bareTarget, type PathPlan, type Target } from './targets.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    out: { type: 'string' },
    rounds: { type: 'string' },
    targets: { type: 'string', default: 'bare,sintonia' },
    'skip-codecs': { type: 'boolean', default: false },
  },
});

const quick = values.quick === true;
/** Where results go unless `--out` says otherwise: the checkout's git-ignored data folder. */
const resultsDir = join(root, 'data', 'bench');
const durationSeconds = Number(values.duration ?? (quick ? 1 : 10));
const warmupSeconds = Number(values.warmup ?? (quick ? 0 : 3));
const connections = Number(values.connections);
const only = values.only?.split(',').map((part) => part.trim().toLowerCase());
const requestCount = quick ? 500 : 20_000;
const roundCount = Number(values.rounds ?? (quick ? 1 : 3));

async function loadTargets(): Promise<Target[]> {
  const wanted = (values.targets ?? '').split(',');
  const targets: Target[] = [];
  if (wanted.includes('bare')) targets.push(bareTarget);
  if (wanted.includes('sintonia')) targets.push((await import('./sintonia-target.ts')).sintoniaTarget);
  return targets;
}

async function benchTarget(
  target: Target,
  dataset: Dataset,
  dir: string,
  round: number,
): Promise<PathResult[]> {
  if (round === 1) {
    const started = Date.now();
    await target.seed(dataset, dir);
    process.stderr.write(`[bench] ${target.name}: store seeded in ${Date.now() - started} ms\n`);
  }
  const port = await freePort();
  const spec = target.server(dir, port);
  const server = await startServer({ ...spec, port });
  const results: PathResult[] = [];
  try {
    const paths = (await target.paths(dataset, server.url, requestCount)).filter(
      (path) => !only || only.some((word) => `${target.name} ${path.name}`.toLowerCase().includes(word)),
    );
    for (const path of paths) {
      const contentType = await probe(server.url, path);
      const plan: LoadPlan = {
        url: server.url,
        connections,
        warmupSeconds,
        durationSeconds,
        requests: path.requests,
      };
      const planFile = join(dir, 'plan.json');
      writeFileSync(planFile, JSON.stringify(plan));
      process.stderr.write(
        `[bench] round ${round}/${roundCount} ${target.name}: ${path.name} (${warmupSeconds}s warm-up, ${durationSeconds}s)\n`,
      );
      const cpuBefore = server.cpuMs();
      const measured = JSON.parse(await runLoadProcess(planFile)) as LoadResult;
      const cpuAfter = server.cpuMs();
      // CPU per request is the figure least moved by other load on a shared machine.
      const served = measured.total + measured.warmupTotal;
      const serverCpuUsPerRequest =
        cpuBefore !== undefined && cpuAfter !== undefined && served > 0
          ? Math.round(((cpuAfter - cpuBefore) * 1000) / served)
          : undefined;
      results.push({
        target: target.name,
        name: path.name,
        operation: path.operation,
        format: path.format,
        contentType,
        serverCpuUsPerRequest,
        ...measured,
      });
    }
  } finally {
    await server.stop();
  }
  return results;
}

/**
 * One request of the path before the load: it must succeed, and a path that asks for a media type must
 * get that type back, or its figures would measure something else.
 */
async function probe(url: string, path: PathPlan): Promise<string> {
  const request = path.requests[0];
  if (!request) throw new Error(`${path.name}: no requests`);
  const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers });
  const body = Buffer.from(await response.arrayBuffer());
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status >= 300) {
    throw new Error(
      `${path.name}: ${request.method} ${request.path} answered ${response.status} ${body.toString('utf8', 0, 300)}`,
    );
  }
  const wanted = request.headers?.accept;
  if (wanted && !contentType.startsWith(wanted)) {
    process.stderr.write(
      `[bench] WARNING ${path.name}: asked for ${wanted}, got ${contentType || 'no content type'}\n`,
    );
  }
  return contentType;
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

const dir = mkdtempSync(join(tmpdir(), 'sintonia-bench-'));
try {
  const dataset = generateDataset(quick ? quickSize : fullSize);
  const targets = await loadTargets();
  const rounds: PathResult[][] = [];
  for (let round = 1; round <= roundCount; round++) {
    const results: PathResult[] = [];
    for (const target of targets) results.push(...(await benchTarget(target, dataset, dir, round)));
    addRatios(results);
    rounds.push(results);
  }
  const results = medianRounds(rounds);
  const codecs = values['skip-codecs'] ? undefined : await codecRows();

  const cpu = cpus();
  const report = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', node: process.version },
    settings: {
      quick,
      rounds: roundCount,
      connections,
      warmupSeconds,
      durationSeconds,
      requestsPerPlan: requestCount,
    },
    dataset: {
      users: dataset.users.length,
      devices: dataset.users.reduce((sum, user) => sum + user.deviceIds.length, 0),
      bookmarks: dataset.bookmarks.length,
      deviceListSize: dataset.size.listDevices,
      signedInUsers: dataset.keys.users.length,
      readKeys: dataset.keys.bookmarks.length,
    },
    results,
    codecs,
  };
  process.stdout.write(`\n${formatTable(results)}\n`);
  if (codecs) process.stdout.write(`\ncodecs (bench/codecs.ts):\n${formatCodecTable(codecs)}\n`);
  const out =
    values.out ?? join(resultsDir, quick ? 'quick.json' : `bench-${report.date.replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\nwritten to ${out}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
