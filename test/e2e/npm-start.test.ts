import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { freePort } from '../helpers/processes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** True when a new listener can take the port: the stopped server let it go. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function healthy(url: string, deadline: number, exited: () => boolean): Promise<void> {
  for (;;) {
    if (exited()) throw new Error('npm start exited early');
    const ok = await fetch(`${url}/healthz`)
      .then((response) => response.status === 200)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url}/healthz did not answer`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('npm start under a process manager', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process stops the services, frees the ports and exits 0; stdout is JSON lines`, async () => {
      const ports = [await freePort(), await freePort(), await freePort()];
      // Its own process group, so that whatever it leaves behind can be cleaned up after a failure.
      const child = spawn('npm', ['start', '--silent'], {
        cwd: root,
        detached: true,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          npm_config_update_notifier: 'false',
          ...core.env,
          CLIENT_API_PORT: String(ports[0]),
          ASSISTANT_AUTH_PORT: String(ports[1]),
          AGENTS_PORT: String(ports[2]),
          LOG_LEVEL: 'info',
        },
      });
      let output = '';
      let stdout = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      // 'exit', not 'close': a server left running would hold the pipes open.
      const exited = new Promise<number | string | null>((resolve) =>
        child.on('exit', (code, killedBy) => resolve(code ?? killedBy)),
      );
      try {
        const deadline = Date.now() + 30_000;
        for (const port of ports) {
          await healthy(`http://127.0.0.1:${port}`, deadline, () => child.exitCode !== null);
        }
        assert.equal(await canListen(ports[0] ?? 0), false, 'the port is held while serving');
        child.kill(signal);
        const stillRunning = new Promise<string>((resolve) =>
          setTimeout(() => resolve('still running 20 s after the signal'), 20_000).unref(),
        );
        assert.equal(await Promise.race([exited, stillRunning]), 0, output);
        for (const port of ports) assert.equal(await canListen(port), true, `port ${port} freed`);
        // stdout is JSON lines only (npm's own `> sintonia@… start` banner is what --silent leaves out).
        const lines = stdout.split('\n').filter(Boolean);
        const notJson = lines.filter((line) => {
          try {
            return typeof JSON.parse(line) !== 'object';
          } catch {
            return true;
          }
        });
        assert.deepEqual(notJson, []);
        assert.ok(
          lines.some((line) => line.includes('"sintonia is serving"')),
          stdout,
        );
      } finally {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // The group is gone already: everything stopped.
        }
      }
    });
  }
});
