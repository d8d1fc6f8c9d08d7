import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePort, startServer } from '../../bench/process.ts';

/** A server script for `node -e`: answers every request with `status` and `body`. */
const answering = (status: number, body: string) =>
  `require('node:http').createServer((q, s) => { s.statusCode = ${status}; s.end(${JSON.stringify(body)}); })` +
  `.listen(Number(process.env.PORT), '127.0.0.1')`;

describe('the bench starts a server and waits for its readiness (bench/process.ts)', () => {
  it('answers the server once its probe answers 200, and stops it', async () => {
    const port = await freePort();
    const server = await startServer({
      args: ['-e', answering(200, 'ready')],
      env: { PORT: String(port) },
      port,
      readyPath: '/readyz',
    });
    assert.equal(server.url, `http://127.0.0.1:${port}`);
    assert.equal(await (await fetch(`${server.url}/readyz`)).text(), 'ready');
    await server.stop();
  });

  it('names a server that never becomes ready, with its probe’s last answer', async () => {
    const port = await freePort();
    await assert.rejects(
      startServer({
        args: ['-e', answering(503, 'draining')],
        env: { PORT: String(port) },
        port,
        readyPath: '/readyz',
        timeoutMs: 1000,
      }),
      new RegExp(
        `-e .* did not become ready on http://127\\.0\\.0\\.1:${port}/readyz \\(last: 503 draining\\)`,
      ),
    );
  });

  it('names a server that exits before it is ready, with its exit code', async () => {
    const port = await freePort();
    await assert.rejects(
      startServer({ args: ['-e', 'process.exit(3)'], env: {}, port, readyPath: '/readyz' }),
      /-e process\.exit\(3\) exited with 3/,
    );
  });
});
