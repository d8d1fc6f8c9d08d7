import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from './harness.ts';

export const binPath = fileURLToPath(new URL('../../bin/sintonia.mjs', import.meta.url));

/**
 * Below the kernel's ephemeral range (ip_local_port_range, 32768 by default): a port from there that was
 * free a moment ago can be given to one of the machine's outgoing connections (a load generator's, the
 * database driver's) before the server binds it, and the server then fails with EADDRINUSE.
 */
function portRange(): [number, number] | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 12_000 ? [10_000, low - 1] : undefined;
  } catch {
    return undefined;
  }
}
const listenable = portRange();

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * Ports given out by the machine's test processes: a file per port holding the pid of the process that
 * has it, until that process ends. Test files run side by side, each in a process of its own; a port
 * free when one picks it may be picked by another before the first one's server binds it (EADDRINUSE).
 */
const CLAIMS = join(tmpdir(), 'sintonia-test-ports');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Claims `port` for this process, unless a living test process (this one too) has it already. */
function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  for (let tries = 0; tries < 2; tries++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      // No claims where they cannot be written (the folder another user's): the port is only checked free.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
    }
    let holder = 0;
    try {
      holder = Number(readFileSync(file, 'utf8').trim() || '0');
    } catch {}
    if (holder === 0 || holder === process.pid || alive(holder)) return false;
    // Its process is gone: the claim is stale.
    try {
      unlinkSync(file);
    } catch {}
  }
  return false;
}

/**
 * A port that was free a moment ago on loopback, outside the ephemeral range where the machine has one,
 * and given to no other test process of the machine while this one lives.
 */
export async function freePort(): Promise<number> {
  if (listenable) {
    try {
      mkdirSync(CLAIMS, { recursive: true });
    } catch {}
    const [low, high] = listenable;
    for (let attempt = 0; attempt < 50; attempt++) {
      const candidate = low + Math.floor(Math.random() * (high - low + 1));
      if (!claim(candidate)) continue;
      const port = await tryListen(candidate);
      if (port !== undefined) return port;
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

/** What a child process writes, gathered as it writes it: each stream, and both in the order written (`all`). */
export function gatherOutput(child: ChildProcess): { stdout: string; stderr: string; all: string } {
  const gathered = { stdout: '', stderr: '', all: '' };
  child.stdout?.on('data', (chunk) => {
    gathered.stdout += chunk;
    gathered.all += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    gathered.stderr += chunk;
    gathered.all += chunk;
  });
  return gathered;
}

/** Runs `sintonia ARGS` to completion with the given environment and standard input (empty by default). */
export function runCli(
  args: string[],
  env: Env,
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], { env: { PATH: process.env.PATH, ...env } });
    const gathered = gatherOutput(child);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: gathered.stdout, stderr: gathered.stderr }));
    child.stdin.end(input);
  });
}

/** Starts `sintonia serve` in a child process; resolves once every URL's /healthz answers 200. */
export async function startServe(
  args: string[],
  env: Env,
  healthUrls: string[],
  timeoutMs = 120_000, // a ceiling for a loaded machine, not a measurement
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [binPath, 'serve', ...args], {
    env: { PATH: process.env.PATH, ...env },
  });
  const gathered = gatherOutput(child);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (const url of healthUrls) {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`serve exited early (${child.exitCode}):\n${gathered.all}`);
      const ok = await fetch(`${url}/healthz`)
        .then((response) => response.status === 200)
        .catch(() => false);
      if (ok) break;
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`serve did not answer ${url}/healthz within ${timeoutMs} ms:\n${gathered.all}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { child, output: () => gathered.all, exited };
}

/** `sintonia serve --service agents` on a free port over `coreEnv`'s store, without demo data, with `env` added; resolves once it answers. */
export async function serveAgents(coreEnv: Env, env: Env) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const served = await startServe(
    ['--service', 'agents'],
    { ...coreEnv, AGENTS_PORT: String(port), SINTONIA_DEMO: '0', ...env },
    [url],
    60_000,
  );
  return { url, ...served };
}

/**
 * `count` processes of `sintonia serve --service client-api` over `coreEnv`'s store, each on a free port (same
 * environment, same master key: what the processes of one deployment get), resolved once each answers: their
 * base URLs (no path), and stop(), which ends each by SIGTERM and waits for it.
 */
export async function serveClientApis(
  coreEnv: Env,
  count = 2,
): Promise<{ urls: string[]; stop(): Promise<void> }> {
  const urls: string[] = [];
  const processes: Array<Awaited<ReturnType<typeof startServe>>> = [];
  const stop = async () => {
    for (const serve of processes) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  };
  try {
    for (let index = 0; index < count; index++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const env = { ...coreEnv, CLIENT_API_PORT: String(port), LOG_LEVEL: 'warn' };
      processes.push(await startServe(['--service', 'client-api'], env, [url]));
      urls.push(url);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls, stop };
}
