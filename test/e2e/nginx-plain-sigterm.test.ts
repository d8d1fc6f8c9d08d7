import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type PostgresCluster, postgresBin, startPostgres } from '../../scripts/pg-cluster.mjs';
import { testDatabase } from '../helpers/harness.ts';
import { keepAliveClient, startNginx } from '../helpers/nginx.ts';
import { freePort, runCli, startServe } from '../helpers/processes.ts';
import { until } from '../helpers/until.ts';

const shipped = fileURLToPath(new URL('../../deploy/nginx/sintonia.conf', import.meta.url));
const pgInfo = postgresBin();
const BASE = '/api/v1';
const PASSWORD = 'correct horse battery';
const CLIENTS = 6;
/** Saves sent in all: 10,000 for the figures of docs/deployment.md (SIGTERM_SAVES=10000), fewer in `npm test`. */
const SAVES = Number(process.env.SIGTERM_SAVES ?? 1500);
/** Each process's ports in the shipped file (client-api, assistant-auth, agents). */
const SHIPPED_PORTS = [
  [18080, 18081, 18082],
  [28080, 28081, 28082],
];

type Served = Awaited<ReturnType<typeof startServe>>;

/**
 * The shipped nginx configuration in front of two processes on one PostgreSQL, and a rolling restart by
 * plain SIGTERM, as Kubernetes or systemd send it: nothing marks the process down in nginx first. While six
 * clients save bookmarks through nginx, the processes are restarted in turn, again and again, until SAVES
 * saves were sent: every save is answered 200 by the family, none by nginx's own 502, and each reads back.
 */
describe('nginx in front of two processes: a rolling restart by plain SIGTERM loses no save', {
  skip:
    testDatabase !== 'postgres'
      ? 'runs on the PostgreSQL pass, with a cluster of its own'
      : !pgInfo
        ? 'no PostgreSQL server binaries'
        : !existsSync('/usr/sbin/nginx')
          ? 'no /usr/sbin/nginx (Debian package nginx; .ci/run installs it)'
          : false,
  timeout: 1_800_000,
}, () => {
  let scratch: string;
  let cluster: PostgresCluster;
  let nginx: Awaited<ReturnType<typeof startNginx>>;
  const served: (Served | undefined)[] = [];
  const envs: Record<string, string>[] = [];
  const directUrls: string[][] = [];
  let userHash = '';

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'sintonia-sigterm-'));
    cluster = await startPostgres(pgInfo as NonNullable<typeof pgInfo>);
    const map: Record<number, number> = {};
    for (const port of [8080, 8081, 8082, ...SHIPPED_PORTS.flat()]) map[port] = await freePort();
    nginx = await startNginx(shipped, join(scratch, 'nginx'), map);
    const common = {
      DATABASE_URL: cluster.url,
      SINTONIA_MASTER_KEY: randomBytes(32).toString('hex'),
      SINTONIA_DEMO: '0',
      TRUSTED_PROXIES: 'loopback',
      LOG_LEVEL: 'warn',
    };
    const setup = { ...common, SINTONIA_DATA_DIR: join(scratch, 'cli') };
    for (const args of [
      ['migrate'],
      ['account', 'create', '--account-number', 'sig-1'],
      ['user', 'create', '--account', 'sig-1', '--email', 'sig-1@example.test', '--password', PASSWORD],
    ]) {
      const run = await runCli(args, setup);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      if (args[0] === 'account') userHash = (JSON.parse(run.stdout) as { userHash: string }).userHash;
    }
    for (const [index, shippedPorts] of SHIPPED_PORTS.entries()) {
      const ports = shippedPorts.map((port) => map[port] ?? 0);
      const dataDir = join(scratch, `process-${index}`);
      mkdirSync(dataDir);
      envs.push({
        ...common,
        SINTONIA_DATA_DIR: dataDir,
        CLIENT_API_PORT: String(ports[0]),
        ASSISTANT_AUTH_PORT: String(ports[1]),
        AGENTS_PORT: String(ports[2]),
      });
      directUrls.push(ports.map((port) => `http://127.0.0.1:${port}`));
      served.push(await startServe([], envs[index] ?? {}, directUrls[index] ?? []));
    }
  });

  after(async () => {
    for (const server of served) {
      server?.child.kill('SIGTERM');
      await server?.exited;
    }
    for (const line of nginx?.errors().split('\n') ?? []) {
      if (line.includes('upstream') && !line.includes('111: Connection refused'))
        process.stdout.write(`# nginx: ${line}\n`);
    }
    await nginx?.stop();
    cluster?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it(`${SAVES} saves (at least) across rolling restarts by plain SIGTERM: each answered 200 by the family`, async () => {
    const clientApi = (path: string) => `${nginx.urls[0]}${BASE}${path}`;
    const tokens: string[] = [];
    for (let client = 0; client < CLIENTS; client++) {
      const response = await fetch(clientApi('/auth/smarttv/users/authenticate'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          username: 'sig-1@example.test',
          password: PASSWORD,
          deviceId: `sig-tv-${client}`,
        }),
      });
      const body = (await response.json()) as { tokens: { accessToken: string } };
      assert.equal(response.status, 200, JSON.stringify(body));
      tokens.push(body.tokens.accessToken);
    }

    const answers: Array<{ status: number; contentType: string; body: string; restarting: boolean }> = [];
    const acknowledged = new Map<number, number>();
    let sent = 0;
    let restarting = false;
    let restarts = 0;
    /** SAVES sent, and both processes restarted at least once under the load. */
    const done = () => sent >= SAVES && restarts >= 2;
    const http = Array.from({ length: CLIENTS }, () => keepAliveClient());
    const client = async (index: number) => {
      for (let round = 0; !done(); round++) {
        sent++;
        const contentId = 100_000 * (index + 1) + round;
        const offset = 1 + (round % 5000);
        const during = restarting;
        let answer: (typeof answers)[number];
        try {
          const got = await (http[index] ?? keepAliveClient()).send(
            clientApi(`/smarttv/sig-tv-${index}/users/${userHash}/bookmarks/${contentId}/${offset}`),
            'POST',
            { authorization: `Bearer ${tokens[index]}` },
          );
          answer = { ...got, restarting: during || restarting };
        } catch (error) {
          answer = { status: 0, contentType: '', body: String(error), restarting: during || restarting };
        }
        answers.push(answer);
        if (answer.status === 200) acknowledged.set(contentId, offset);
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
    try {
      // Each process in turn: plain SIGTERM under load, wait for its exit, start it again, wait for /readyz.
      for (let index = 0; !done(); index = 1 - index) {
        const from = sent;
        await until(
          () => (sent >= from + 100 || done() ? true : undefined),
          'saves between restarts',
          60_000,
        );
        if (done()) break;
        restarting = true;
        const server = served[index];
        server?.child.kill('SIGTERM');
        assert.equal(await server?.exited, 0, `process ${index} exits 0 after SIGTERM`);
        served[index] = undefined;
        served[index] = await startServe([], envs[index] ?? {}, directUrls[index] ?? [], 60_000);
        await until(
          async () =>
            (await fetch(`${directUrls[index]?.[0]}/readyz`).then((response) => response.status)) === 200
              ? true
              : undefined,
          `process ${index} ready again`,
        );
        restarting = false;
        restarts++;
      }
    } finally {
      await load;
      for (const connection of http) connection.close();
    }

    const byStatus: Record<string, number> = {};
    for (const answer of answers) byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
    process.stdout.write(
      `# plain SIGTERM behind nginx: ${answers.length} saves, ${restarts} restarts, by answer ${JSON.stringify(byStatus)}, ` +
        `${answers.filter((answer) => answer.restarting).length} sent during a restart, ` +
        `${nginx.retriedRequests()} passed on by nginx to the other process\n`,
    );
    assert.ok(restarts >= 2, 'both processes restarted under load');
    const strange = answers.filter(
      (answer) => answer.status !== 200 || !answer.contentType.startsWith('application/json'),
    );
    assert.deepEqual(
      strange.slice(0, 5).map(({ status, body }) => ({ status, body: body.slice(0, 200) })),
      [],
      `${strange.length} of ${answers.length} saves not answered 200 by the family`,
    );

    const missing: number[] = [];
    let index = 0;
    for (const [contentId, offset] of acknowledged) {
      const response = await fetch(clientApi(`/smarttv/users/${userHash}/bookmarks/${contentId}`), {
        headers: { authorization: `Bearer ${tokens[index++ % CLIENTS]}` },
      });
      const body = (await response.json()) as { offset?: number };
      if (response.status !== 200 || body.offset !== offset) missing.push(contentId);
    }
    assert.deepEqual(missing.slice(0, 10), [], `${missing.length} of ${acknowledged.size} saves lost`);
  });
});
