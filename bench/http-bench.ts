/**
 * The HTTP part on one store (docs/benchmarks.md): each target's server in its own process, one under load
 * at a time, the paths of one operation back to back; in `rounds` rounds, each path's median round.
 */
import autocannon from 'autocannon';
import type { Shape } from './dataset.ts';
import { freePort, type Server, startServer } from './process.ts';
import { addRatios, medianRounds } from './report.ts';
import type { PathPlan, Target } from './targets.ts';

type Counts = 'rounds' | 'connections' | 'warmupSeconds' | 'durationSeconds' | 'requestsPerPlan';
/** `only`: words of `<target> <path>` names to keep (lower case); undefined keeps every path. */
export type HttpSettings = Record<Counts, number> & { only: string[] | undefined; label: string };

/** A path's figures: its median round's, its ratios (the median of the rounds'), each round's req/s. */
export type PathResult = Awaited<ReturnType<typeof measure>> & {
  /** Over the bare path of the same operation; a format's over our JSON read. */
  ratioToBare?: number;
  ratioToJson?: number;
  rounds?: number[];
};

/** Loads the targets, seeded with `shape` beforehand. */
export async function runHttpBench(targets: Target[], shape: Shape, dir: string, settings: HttpSettings) {
  const rounds: PathResult[][] = [];
  const say = (line: string) => process.stderr.write(`[bench] ${settings.label} ${line}\n`);
  for (let round = 1; round <= settings.rounds; round++) {
    const running: Array<{ target: Target; server: Server; paths: PathPlan[] }> = [];
    const results: PathResult[] = [];
    try {
      for (const target of targets) {
        const port = await freePort();
        const server = await startServer({ ...target.server(dir, port), port });
        const entry = { target, server, paths: [] as PathPlan[] };
        running.push(entry); // before its paths, so that a failed sign-in still stops this server
        const name = (path: PathPlan) => `${target.name} ${path.name}`.toLowerCase();
        const kept = (path: PathPlan) => settings.only?.some((word) => name(path).includes(word)) ?? true;
        entry.paths = (await target.paths(shape, server.url, settings.requestsPerPlan)).filter(kept);
      }
      for (const operation of ['read', 'write', 'devices'])
        for (const { target, server, paths } of running)
          for (const path of paths.filter((candidate) => candidate.operation === operation)) {
            say(`round ${round}/${settings.rounds} ${target.name}: ${path.name}`);
            results.push(await measure(target.name, server, path, settings));
          }
    } finally {
      await Promise.all(running.map((entry) => entry.server.stop()));
    }
    addRatios(results);
    rounds.push(results);
  }
  return medianRounds(rounds);
}

async function measure(target: Target['name'], server: Server, path: PathPlan, settings: HttpSettings) {
  await probe(server.url, path);
  if (settings.warmupSeconds > 0) await load(server.url, path, settings.connections, settings.warmupSeconds);
  const cpuBefore = server.cpuMs() ?? Number.NaN;
  const result = await load(server.url, path, settings.connections, settings.durationSeconds);
  const perRequest = (((server.cpuMs() ?? Number.NaN) - cpuBefore) * 1000) / result.requests.total;
  return {
    target,
    name: path.name,
    operation: path.operation,
    format: path.format,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    /** The server process's CPU time per request, in µs. */
    serverCpuUsPerRequest: Number.isFinite(perRequest) ? Math.round(perRequest) : undefined,
  };
}

/**
 * Each connection cycles through its own random sample of the plan's requests, built once: a request built
 * per call (autocannon's `setupRequest`) costs the load generator much of its throughput, which would
 * flatter the slower server.
 */
function load(url: string, { requests }: PathPlan, connections: number, duration: number) {
  const one = () => requests[Math.floor(Math.random() * requests.length)] as autocannon.Request;
  const sample = (size: number) => Array.from({ length: size }, one);
  return autocannon({
    url,
    connections,
    duration,
    timeout: 10,
    requests: sample(1),
    setupClient: (client) => client.setRequests(sample(Math.min(requests.length, 2000))),
  });
}

/** One request first: it must succeed, in the media type it asked for, or the path would measure something else. */
async function probe(url: string, { name, requests: [request] }: PathPlan): Promise<void> {
  if (!request) throw new Error(`${name}: no requests`);
  const send = () => fetch(`${url}${request.path}`, { method: request.method, headers: request.headers });
  // Once more on a failure: a kept-alive socket from the readiness check may have been closed since.
  const response = await send().catch(send);
  const body = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (response.status >= 300)
    throw new Error(`${name}: ${request.path} answered ${response.status} ${body.slice(0, 300)}`);
  if (request.headers?.accept && !type.startsWith(request.headers.accept))
    throw new Error(`${name}: answered ${type}`);
}
