/**
 * The HTTP part of the bench on one store: the bare baseline and the real client-api, each alone in its
 * own process in turn, every hot path loaded by autocannon (its own process, 127.0.0.1 only, bounded in
 * time), in `rounds` rounds (bare, client-api, bare, client-api…); each path's median round is reported.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from './dataset.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { freePort, runLoadProcess, startServer } from './process.ts';
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
}

export async function runHttpBench(
  targets: Target[],
  dataset: Dataset,
  dir: string,
  settings: HttpSettings,
): Promise<PathResult[]> {
  const rounds: PathResult[][] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const results: PathResult[] = [];
    for (const target of targets) results.push(...(await benchTarget(target, dataset, dir, round, settings)));
    addRatios(results);
    rounds.push(results);
  }
  return medianRounds(rounds);
}

async function benchTarget(
  target: Target,
  dataset: Dataset,
  dir: string,
  round: number,
  settings: HttpSettings,
): Promise<PathResult[]> {
  const say = (line: string) => process.stderr.write(`[bench] ${settings.label} ${line}\n`);
  if (round === 1) {
    const started = Date.now();
    await target.seed(dataset, dir);
    say(`${target.name}: store seeded in ${Date.now() - started} ms`);
  }
  const port = await freePort();
  const spec = target.server(dir, port);
  const server = await startServer({ ...spec, port });
  const results: PathResult[] = [];
  try {
    const only = settings.only;
    const paths = (await target.paths(dataset, server.url, settings.requestsPerPlan)).filter(
      (path) =>
        (!only || only.some((word) => `${target.name} ${path.name}`.toLowerCase().includes(word))) &&
        (!settings.formats || settings.formats.includes(path.format)),
    );
    for (const path of paths) {
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
      say(
        `round ${round}/${settings.rounds} ${target.name}: ${path.name} (${settings.warmupSeconds}s warm-up, ${settings.durationSeconds}s)`,
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
