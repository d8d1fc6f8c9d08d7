/** The bench's processes: the servers under test, each in its own process, and their CPU time. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
// One way to find a free port, shared with the test harness.
import { freePort } from '../test/helpers/processes.ts';

export const root = new URL('..', import.meta.url).pathname;
/** The CLI of this checkout, or of BENCH_SINTONIA_ROOT's (before/after figures against another checkout). */
export const sintoniaBin = () => join(process.env.BENCH_SINTONIA_ROOT ?? root, 'bin/sintonia.mjs');

export { freePort };

/** A `sintonia` process's environment (and its seeding's): its data folder, a new master key, its database. */
export const productEnv = (dataDir: string, databaseUrl: string) => ({
  SINTONIA_DATA_DIR: dataDir,
  SINTONIA_MASTER_KEY: randomBytes(32).toString('hex'),
  DATABASE_URL: databaseUrl,
  SINTONIA_DEMO: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
});

/** POST of a JSON body with a bearer; the JSON answered, or an error unless 2xx. */
export async function postJson<T>(url: string, bearer: string, body: unknown): Promise<T> {
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export interface Server {
  url: string;
  pid: number | undefined;
  /** CPU time (user + system) the server process has used so far, in ms; undefined without /proc. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms on Linux). */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
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
 * Starts a server process (node with these arguments) and waits until its GET /readyz answers 200, and that
 * of `alsoReady`'s other ports of the same process. Under `--pin` (run.ts) the server gets CPU 0 to itself;
 * taskset execs node, so the pid is node's. BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof`) profiles the server under load.
 */
type ServerStart = { args: string[]; env: Record<string, string>; port: number; alsoReady?: number[] };
export async function startServer(options: ServerStart): Promise<Server> {
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
  for (const deadline = Date.now() + 60_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
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
  const free: number[] = [];
  for (const _ of ports) free.push(await freePort());
  const [port = 0, ...alsoReady] = free;
  const named = Object.fromEntries(ports.map((name, index) => [name, String(free[index])]));
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

/**
 * `--tracing`: an OTLP/HTTP endpoint that accepts every export and keeps nothing; the servers started
 * afterwards inherit the OTEL_* variables that point their SDK at it.
 */
export async function startSpanSink(): Promise<void> {
  const sink = createServer((request, response) => {
    request
      .resume()
      .on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sink.unref();
  const address = sink.address();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??= 'http/json';
}
