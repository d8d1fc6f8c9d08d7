import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { until } from './until.ts';

export const NGINX = '/usr/sbin/nginx';

/** How many ports a configuration's lines name (listen, the port map, upstream servers). */
const PORTS = /(?<=^\s*listen |^\s*|127\.0\.0\.1:)(\d{4,5})(?=[\s;])/gm;

/** An upstream `server` line of the shipped file, and the port it names. */
const SERVER = /^(\s*server 127\.0\.0\.1:(\d{4,5})\b[^;\n]*);/gm;

/**
 * The shipped file with its port numbers replaced by `ports` (shipped port → test port) and the upstream
 * `server` lines of the shipped ports in `down` marked `down`, as an operator does before stopping a process
 * (docs/deployment.md, Rolling restart); every other byte is the shipped one.
 */
export function renderConfig(shipped: string, ports: Record<number, number>, down: number[] = []) {
  let marked = 0;
  let replaced = 0;
  const config = readFileSync(shipped, 'utf8')
    .replace(SERVER, (line: string, start: string, port: string) => {
      if (!down.includes(Number(port))) return line;
      marked++;
      return `${start} down;`;
    })
    .replace(PORTS, (port) => {
      const to = ports[Number(port)];
      assert.ok(to, `the test has a port for ${port}, named in ${shipped}`);
      replaced++;
      return String(to);
    });
  assert.equal(marked, down.length, `a server line in ${shipped} for each of ${down.join(', ')}`);
  assert.ok(replaced >= Object.keys(ports).length, `every port replaced in ${shipped}`);
  return config;
}

/** The processes whose parent is `pid`, with their titles (nginx's workers name themselves). */
function childrenOf(pid: number) {
  const children: { pid: number; title: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, the last ')' ends it.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== pid) continue;
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      children.push({ pid: Number(entry), title });
    } catch {
      // The process exited while it was read.
    }
  }
  return children;
}

/**
 * Debian's nginx, run as the current user in `dir` (its own prefix, pid, temporary folders and logs) with a
 * shipped configuration file rendered by `renderConfig` (its ports replaced, no process down). Resolves once
 * nginx accepts on every listening port.
 */
export async function startNginx(shipped: string, dir: string, ports: Record<number, number>) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'sintonia.conf'), renderConfig(shipped, ports));
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
  const options = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  const child = spawn(NGINX, options, { stdio: 'ignore' });
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
    /**
     * The operator's reload (docs/deployment.md, Rolling restart): the shipped file rendered again with the
     * `server` lines of the shipped ports in `down` marked `down`, then `nginx -t && nginx -s reload`; resolves once
     * nginx's old worker has exited, that is once every request it had in flight is answered and its
     * connections to the processes are closed.
     */
    async reload(down: number[]) {
      const master = child.pid ?? 0;
      const before = new Set(childrenOf(master).map((worker) => worker.pid));
      writeFileSync(join(dir, 'sintonia.conf'), renderConfig(shipped, ports, down));
      // As the operator types it: `nginx -t && nginx -s reload`.
      for (const command of [['-t'], ['-s', 'reload']]) {
        await new Promise<void>((resolve, reject) =>
          execFile(NGINX, [...options, ...command], (error, _stdout, stderr) =>
            error ? reject(new Error(`nginx ${command.join(' ')}: ${error.message}\n${stderr}`)) : resolve(),
          ),
        );
      }
      await until(
        () => {
          if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${errors()}`);
          const workers = childrenOf(master);
          const settled =
            workers.length > 0 &&
            workers.every((worker) => !before.has(worker.pid) && !worker.title.includes('shutting down'));
          return settled ? true : undefined;
        },
        `nginx reloaded with ${down.length ? `${down.join(', ')} down` : 'every process up'}`,
        60_000,
      );
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** What `keepAliveClient`'s request got: nginx's answer, and how often it was sent again first. */
export interface ClientAnswer {
  status: number;
  contentType: string;
  retryAfter: string | null;
  body: string;
  /** Times it was sent again because nginx had closed the idle keep-alive connection it was written on. */
  resent: number;
}

/**
 * An HTTP/1.1 client that keeps its connections to nginx alive, as browsers and apps do, and handles the
 * keep-alive race as Node's documentation says: nginx closes idle client connections when it reloads (its
 * old worker exits), and a request written on one in that instant is reset before any answer; such a
 * request (a reused connection, ECONNRESET or closed with no answer) is sent again, once, on a new one. Any
 * other failure rejects.
 */
export function keepAliveClient() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = (url: string, method: string, headers: Record<string, string>) =>
    new Promise<Omit<ClientAnswer, 'resent'>>((resolve, reject) => {
      const sent = request(url, { method, headers, agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            retryAfter: (response.headers['retry-after'] as string | undefined) ?? null,
            body,
          }),
        );
      });
      sent.on('error', (error: NodeJS.ErrnoException) => {
        const closedIdle =
          sent.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up');
        reject(Object.assign(error, { closedIdle }));
      });
      sent.end();
    });
  return {
    async send(url: string, method: string, headers: Record<string, string>): Promise<ClientAnswer> {
      try {
        return { ...(await once(url, method, headers)), resent: 0 };
      } catch (error) {
        if (!(error as { closedIdle?: boolean }).closedIdle) throw error;
        return { ...(await once(url, method, headers)), resent: 1 };
      }
    },
    close: () => agent.destroy(),
  };
}
