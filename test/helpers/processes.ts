import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Env } from './harness.ts';

export const binPath = fileURLToPath(new URL('../../bin/sintonia.mjs', import.meta.url));

/** A port that was free a moment ago on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Runs `sintonia ARGS` to completion with the given environment. */
export function runCli(
  args: string[],
  env: Env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `sintonia serve` in a child process; resolves once every URL's /healthz answers 200. */
export async function startServe(
  args: string[],
  env: Env,
  healthUrls: string[],
  timeoutMs = 30_000,
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [binPath, 'serve', ...args], {
    env: { PATH: process.env.PATH, ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (const url of healthUrls) {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited early (${child.exitCode}):\n${output}`);
      const ok = await fetch(`${url}/healthz`)
        .then((response) => response.status === 200)
        .catch(() => false);
      if (ok) break;
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`serve did not answer ${url}/healthz within ${timeoutMs} ms:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { child, output: () => output, exited };
}
