// A throwaway PostgreSQL cluster made from the machine's own server binaries (initdb, pg_ctl), for the
// test command and the benchmark: a fresh data folder, a free loopback port, no durability (fsync off) unless asked for,
// stopped and removed by stop(). As root, the cluster runs as the `postgres` (or `nobody`) user.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest server binaries under /usr/lib/postgresql, or undefined when there are none. */
export function postgresBin() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((version) => existsSync(join(base, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? { bin: join(base, versions[0], 'bin'), version: versions[0] } : undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function clusterUser() {
  return spawnSync('id', ['-u', 'postgres']).status === 0 ? 'postgres' : 'nobody';
}

/** initdb refuses root: as root, the cluster's commands run as the cluster's user. */
function asUser(command, args) {
  if (process.getuid?.() !== 0) return [command, args];
  return ['runuser', ['-u', clusterUser(), '--', command, ...args]];
}

function run(command, args) {
  const [cmd, argv] = asUser(command, args);
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
}

/**
 * Starts a cluster (pgInfo from postgresBin(); options: maxConnections, ssl, durable); answers its superuser URL, the postmaster's pid (for
 * measuring the database's CPU time), restart() and stop(), which stops it at once and removes its folder.
 */
export async function startPostgres(pgInfo, options = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sintonia-pg-'));
  chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', clusterUser(), dir]);
  const data = join(dir, 'data');
  const port = await freePort();
  const maxConnections = options.maxConnections ?? 300;
  // Tests want speed and no durability; the bench wants what production runs (a commit waits for its WAL
  // flush: docs/decisions-performance.md, "Pipelined statements").
  const durability = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  run(join(pgInfo.bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  // ssl: a self-signed certificate for the day (openssl, which Debian's postgresql package brings along).
  if (options.ssl) {
    run('openssl', [
      'req',
      ...['-new', '-x509', '-days', '1', '-nodes', '-subj', '/CN=127.0.0.1'],
      ...['-keyout', join(data, 'server.key'), '-out', join(data, 'server.crt')],
    ]);
    chmodSync(join(data, 'server.key'), 0o600);
  }
  run(join(pgInfo.bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${durability} -c max_connections=${maxConnections}${options.ssl ? ' -c ssl=on' : ''}`,
    'start',
  ]);
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    version: pgInfo.version,
    pid,
    /**
     * pg_ctl restart in fast mode (open sessions terminated), with the same options; resolves once it accepts
     * again. Asynchronous, so that the caller's own requests go on meanwhile.
     */
    restart() {
      const [cmd, argv] = asUser(join(pgInfo.bin, 'pg_ctl'), [
        ...['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-m', 'fast', 'restart'],
      ]);
      return new Promise((resolve, reject) => {
        const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
        });
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve() : reject(new Error(`pg_ctl restart failed: ${stderr}`)),
        );
      });
    },
    stop() {
      try {
        run(join(pgInfo.bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
