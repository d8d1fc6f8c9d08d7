/** The bench's processes: the servers under test, each in its own process, and their CPU time. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// One way to find a free port, shared with the test harness.
import { freePort } from '../test/helpers/processes.ts';
import type { BenchStore } from './store.ts';

export { freePort, sleep };
export const root = new URL('..', import.meta.url).pathname;
/** The CLI of this checkout, or of BENCH_SINTONIA_ROOT's (before/after figures against another checkout). */
export const sintoniaBin = () => join(process.env.BENCH_SINTONIA_ROOT ?? root, 'bin/sintonia.mjs');

/** A `sintonia` process's environment (and its seeding's): its data folder, a new master key, its database. */
export const productEnv = (dataDir: string, databaseUrl: string) => ({
  SINTONIA_DATA_DIR: dataDir,
  SINTONIA_MASTER_KEY: randomBytes(32).toString('hex'),
  DATABASE_URL: databaseUrl,
  SINTONIA_DEMO: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
});

/** A stream part's product environment: a data folder of its own, and a database of its own on PostgreSQL. */
export async function partEnv(store: BenchStore, dir: string, part: string) {
  const databaseUrl = store.kind === 'postgres' ? await store.createDatabase(`bench_${part}`) : '';
  return productEnv(join(dir, `${part}-${randomBytes(3).toString('hex')}`), databaseUrl);
}

/** A POST (or `method`), with a bearer and a JSON body if given; the JSON answered, an error unless 2xx. */
export async function sendJson<T>(url: string, bearer?: string, body?: unknown, method = 'POST'): Promise<T> {
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export type Server = Awaited<ReturnType<typeof startServer>>;

/** The CPU time (user + system) a process has used so far, in ms; undefined without /proc. */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    // utime + stime: fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms on Linux.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** `work` for each of `count` items, `width` at a time. */
export async function inBatches<R>(count: number, width: number, work: (index: number) => Promise<R>) {
  const results: R[] = [];
  for (let start = 0; start < count; start += width) {
    const batch = Array.from({ length: Math.min(width, count - start) }, (_, i) => work(start + i));
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

/**
 * Starts a server process (node with these arguments), ready once GET /readyz answers 200 on its port and
 * on `alsoReady`'s. Under `--pin` (run.ts) it gets CPU 0 to itself; taskset execs node, so the pid is
 * node's. BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles it under load.
 */
type ServerStart = { args: string[]; env: Record<string, string>; port: number; alsoReady?: number[] };
export async function startServer(options: ServerStart) {
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const pinned = process.env.BENCH_PINNED === '1' ? ['taskset', '-c', '0'] : [];
  const [executable = '', ...args] = [...pinned, process.execPath, ...nodeArgs, ...options.args];
  // The server's log lines go to /dev/null: still formatted and written, as in production.
  const env = { ...process.env, ...options.env };
  const child = spawn(executable, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  const url = `http://127.0.0.1:${options.port}`;
  const failed = (why: string) => new Error(`${options.args.join(' ')} ${why}: ${stderr}`);
  let last = 'no answer yet';
  const ready = async (port: number) => {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5000) });
    last = `${port}: ${response.status} ${(await response.text()).slice(0, 500)}`;
    return response.status === 200;
  };
  const ports = [options.port, ...(options.alsoReady ?? [])];
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    if (child.exitCode !== null) throw failed(`exited with ${child.exitCode}`);
    const answers = await Promise.all(ports.map(ready)).catch((error) => {
      last = String(error.cause ?? error);
      return [false];
    });
    if (answers.every(Boolean)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw failed(`did not become ready on ${url} (last: ${last})`);
    }
  }
  return { url, pid: child.pid, cpuMs: () => processCpuMs(child.pid), stop: () => stopChild(child) };
}

/** `sintonia serve --service <services>`, each of `ports`' variables set to a free port, ready once all answer. */
export async function serveSintonia(services: string, env: Record<string, string>, ports: string[]) {
  const free = await inBatches(ports.length, 1, () => freePort());
  const named = Object.fromEntries(ports.map((name, index) => [name, String(free[index])]));
  const [port = 0, ...alsoReady] = free;
  const args = [sintoniaBin(), 'serve', '--service', services];
  return startServer({ args, env: { ...env, ...named }, port, alsoReady });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  clearTimeout(timer);
}

/** `--tracing`: an OTLP/HTTP sink that accepts and drops every export; later servers' OTEL_* point at it. */
export async function startSpanSink(): Promise<void> {
  const json = { 'content-type': 'application/json' };
  const sink = createServer((request, response) => {
    request.resume().on('end', () => response.writeHead(200, json).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sink.unref();
  const { port } = sink.address() as AddressInfo;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
  process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??= 'http/json';
}
