import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { processCpuMs } from './store.ts';

export const root = new URL('..', import.meta.url).pathname;

// One way to find a free port, shared with the test harness.
export { freePort } from '../test/helpers/processes.ts';

export interface Server {
  url: string;
  pid: number | undefined;
  /** CPU time (user + system) the server process has used so far, in ms; undefined without /proc. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** Starts a server process (the arguments say which: the compiled CLI, a baseline script) and waits until GET readyPath answers 200. */
export async function startServer(options: {
  args: string[];
  env: Record<string, string>;
  port: number;
  readyPath: string;
  timeoutMs?: number;
}): Promise<Server> {
  // BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the server under load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const command = [process.execPath, ...nodeArgs, ...options.args];
  // Under `--pin` (run.ts) the server gets CPU 0 to itself; taskset execs node, so the pid is node's.
  if (process.env.BENCH_PINNED === '1') command.unshift('taskset', '-c', '0');
  const [executable = process.execPath, ...args] = command;
  const child = spawn(executable, args, {
    cwd: root,
    env: { ...process.env, ...options.env },
    // The server's log lines go to /dev/null: they are still formatted and written, as in production.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const name = options.args.join(' ');
  // The probe's last answer (or why there was none), for the error of a server that never becomes ready.
  let last = 'no answer yet';
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${stderr}`);
    try {
      const response = await fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(5000) });
      last = `${response.status} ${(await response.text()).slice(0, 500)}`;
      if (response.status === 200) break;
    } catch (error) {
      // not listening yet, or no answer within 5 s
      last = String((error as Error).cause ?? error);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `${name} did not become ready on ${url}${options.readyPath} (last: ${last}): ${stderr}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid, cpuMs: () => processCpuMs(child.pid), stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs the load generator in its own process and returns what it printed. */
export function runLoadProcess(planFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'load.ts'), planFile], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8000);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`load generator exited with ${code}: ${stderr}`));
    });
  });
}

/**
 * `--tracing`: an OTLP/HTTP endpoint that accepts every export and keeps nothing; the servers started
 * afterwards inherit the OTEL_* variables that point their SDK at it.
 */
export async function startSpanSink(): Promise<void> {
  const { createServer } = await import('node:http');
  const sink = createServer((request, response) => {
    request
      .resume()
      .on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sink.unref();
  const address = sink.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
  process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??= 'http/json';
}
