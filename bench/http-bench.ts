/**
 * The HTTP part of the bench on one store: the bare baseline and the real client-api, each in its own
 * process, every hot path loaded by autocannon (its own process, 127.0.0.1 only, bounded in time), one
 * server under load at a time, the paths of one operation back to back (bare read, our reads, bare
 * upsert, our save…), in `rounds` rounds; each path's median round is reported.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from './dataset.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { freePort, runLoadProcess, type Server, startServer } from './process.ts';
import { addRatios, medianRounds, type PathResult } from './report.ts';
import type { Format, PathPlan, Target } from './targets.ts';

export interface HttpSettings {
  rounds: number;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  requestsPerPlan: number;
  /** Words of `<target> <path>` names to keep (lower case); undefined keeps every path. */
  only: string[] | undefined;
  /** The media types to load; undefined loads every one the target has. */
  formats: Format[] | undefined;
  /** Label of the store in progress lines. */
  label: string;
  /** The database server's CPU time so far (ms; PostgreSQL's process tree), undefined for SQLite. */
  databaseCpuMs?: () => number | undefined;
}

export async function runHttpBench(
  targets: Target[],
  dataset: Dataset,
  dir: string,
  settings: HttpSettings,
): Promise<PathResult[]> {
  const say = (line: string) => process.stderr.write(`[bench] ${settings.label} ${line}\n`);
  for (const target of targets) {
    const started = Date.now();
    await target.seed(dataset, dir);
    say(`${target.name}: store seeded in ${Date.now() - started} ms`);
  }
  const rounds: PathResult[][] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const running: Array<{ target: Target; server: Server; paths: PathPlan[] }> = [];
    const results: PathResult[] = [];
    try {
      for (const target of targets) {
        const port = await freePort();
        const server = await startServer({ ...target.server(dir, port), port });
        const entry = { target, server, paths: [] as PathPlan[] };
        // Pushed before its paths are built, so that a failed sign-in still stops this server.
        running.push(entry);
        entry.paths = wanted(
          target,
          await target.paths(dataset, server.url, settings.requestsPerPlan),
          settings,
        );
      }
      // Each operation's bare path, then ours, back to back: on a shared machine the load of the moment
      // moves both figures of a ratio alike. The server not under load waits idle.
      const operations = [...new Set(running.flatMap((entry) => entry.paths.map((path) => path.operation)))];
      for (const operation of operations)
        for (const { target, server, paths } of running)
          for (const path of paths.filter((candidate) => candidate.operation === operation)) {
            say(
              `round ${round}/${settings.rounds} ${target.name}: ${path.name} (${settings.warmupSeconds}s warm-up, ${settings.durationSeconds}s)`,
            );
            results.push(await measure(target, server, path, dir, settings));
          }
    } finally {
      await Promise.all(running.map((entry) => entry.server.stop()));
    }
    addRatios(results);
    rounds.push(results);
  }
  return medianRounds(rounds);
}

function wanted(target: Target, paths: PathPlan[], settings: HttpSettings): PathPlan[] {
  const only = settings.only;
  return paths.filter(
    (path) =>
      (!only || only.some((word) => `${target.name} ${path.name}`.toLowerCase().includes(word))) &&
      (!settings.formats || settings.formats.includes(path.format)),
  );
}

async function measure(
  target: Target,
  server: Server,
  path: PathPlan,
  dir: string,
  settings: HttpSettings,
): Promise<PathResult> {
  const contentType = await probe(server.url, path);
  const plan: LoadPlan = {
    url: server.url,
    connections: settings.connections,
    warmupSeconds: settings.warmupSeconds,
    durationSeconds: settings.durationSeconds,
    requests: path.requests,
  };
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const cpuBefore = server.cpuMs();
  const databaseBefore = settings.databaseCpuMs?.();
  const measured = JSON.parse(await runLoadProcess(planFile)) as LoadResult;
  const cpuAfter = server.cpuMs();
  const databaseAfter = settings.databaseCpuMs?.();
  // CPU per request is the figure least moved by other load on a shared machine.
  const served = measured.total + measured.warmupTotal;
  const perRequest = (before: number | undefined, after: number | undefined) =>
    before !== undefined && after !== undefined && served > 0
      ? Math.round(((after - before) * 1000) / served)
      : undefined;
  const serverCpuUsPerRequest = perRequest(cpuBefore, cpuAfter);
  // PostgreSQL's share of a request: on a 2-core machine the cluster and the load generator share the
  // other CPU, and a path whose statements cost the cluster more is bounded there, not in the server.
  const databaseCpuUsPerRequest = perRequest(databaseBefore, databaseAfter);
  return {
    target: target.name,
    name: path.name,
    operation: path.operation,
    format: path.format,
    contentType,
    serverCpuUsPerRequest,
    ...(databaseCpuUsPerRequest === undefined ? {} : { databaseCpuUsPerRequest }),
    ...measured,
  };
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
