/**
 * The load generator, run as its own process so that it never shares an event loop with a server:
 * `node --import tsx bench/load.ts <plan.json>` loads one path with autocannon (warm-up, then the
 * measured run) and prints the measured result as one JSON line. Keys are random for every request:
 * each connection gets its own random sample of the plan's pre-generated requests, in random order,
 * which autocannon builds once and cycles through (rebuilding a request per call in `setupRequest`
 * costs the load generator about 40% of its throughput, which would flatter the slower server).
 */
import { readFileSync } from 'node:fs';
import autocannon, { type Client, type RawRequest } from 'autocannon';

export interface LoadPlan {
  url: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  requests: Array<{ method: string; path: string; headers?: Record<string, string>; body?: string }>;
}

export interface LoadResult {
  /** Requests completed during the warm-up (the server's CPU time is divided over both runs). */
  warmupTotal: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  average: number;
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

/** A random sample of the plan's requests for one connection, so that no two connections walk in step. */
function sampleFor(plan: LoadPlan): RawRequest[] {
  const size = Math.min(plan.requests.length, 2000);
  return Array.from({ length: size }, () => {
    const chosen = plan.requests[Math.floor(Math.random() * plan.requests.length)];
    if (!chosen) throw new Error('the plan has no requests');
    return { method: chosen.method, path: chosen.path, headers: chosen.headers ?? {}, body: chosen.body };
  });
}

async function run(plan: LoadPlan, durationSeconds: number) {
  const first = sampleFor(plan).slice(0, 1);
  return autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: durationSeconds,
    timeout: 10,
    requests: first,
    setupClient: (client: Client) => client.setRequests(sampleFor(plan)),
  });
}

const file = process.argv[2];
if (!file) throw new Error('usage: load.ts <plan.json>');
const plan = JSON.parse(readFileSync(file, 'utf8')) as LoadPlan;
const warmup = plan.warmupSeconds > 0 ? await run(plan, plan.warmupSeconds) : undefined;
const result = await run(plan, plan.durationSeconds);
const measured: LoadResult = {
  warmupTotal: warmup?.requests.total ?? 0,
  requestsPerSecond: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  average: result.latency.average,
  total: result.requests.total,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statusCodes: Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]),
  ),
};
process.stdout.write(`${JSON.stringify(measured)}\n`);
