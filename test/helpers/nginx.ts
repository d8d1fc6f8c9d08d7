import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { until } from './until.ts';

export const NGINX = '/usr/sbin/nginx';

/** How many ports a configuration's lines name (listen, the port map, upstream servers). */
const PORTS = /(?<=^\s*listen |^\s*|127\.0\.0\.1:)(\d{4,5})(?=[\s;])/gm;

/**
 * Debian's nginx, run as the current user in `dir` (its own prefix, pid, temporary folders and logs) with a
 * shipped configuration file whose port numbers are replaced by `ports` (shipped port → test port); every
 * other byte of the file is the shipped one. Resolves once nginx accepts on every listening port.
 */
export async function startNginx(shipped: string, dir: string, ports: Record<number, number>) {
  mkdirSync(dir, { recursive: true });
  let replaced = 0;
  const config = readFileSync(shipped, 'utf8').replace(PORTS, (port) => {
    const to = ports[Number(port)];
    assert.ok(to, `the test has a port for ${port}, named in ${shipped}`);
    replaced++;
    return String(to);
  });
  assert.ok(replaced >= Object.keys(ports).length, `every port replaced in ${shipped}`);
  writeFileSync(join(dir, 'sintonia.conf'), config);
  // The main file Debian's /etc/nginx/nginx.conf would be: the shipped one is included inside `http`.
  // The access log says which process(es) each request went to, retries included ("a:1, b:2").
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      "  log_format upstreams '$status $request_method $upstream_addr $upstream_status';",
      `  access_log ${join(dir, 'access.log')} upstreams;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (temp) => `  ${temp}_temp_path ${join(dir, `${temp}-temp`)};`,
      ),
      `  include ${join(dir, 'sintonia.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const errors = () =>
    existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
  const listening = [8080, 8081, 8082].map((port) => ports[port] ?? 0);
  for (const port of listening) {
    await until(
      () => {
        if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${errors()}`);
        return new Promise<true | undefined>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.destroy();
            resolve(true);
          });
          socket.on('error', () => resolve(undefined));
        });
      },
      `nginx listening on ${port}`,
      30_000,
    );
  }
  return {
    urls: listening.map((port) => `http://127.0.0.1:${port}`),
    errors,
    /** Requests nginx passed on to another process after a connection error or timeout. */
    retriedRequests: () =>
      readFileSync(join(dir, 'access.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes(', ')).length,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
