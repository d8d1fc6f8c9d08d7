import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { type PostgresCluster, postgresBin, startPostgres } from '../../scripts/pg-cluster.mjs';
import { deviceToken } from '../helpers/household.ts';
import { keepAliveClient } from '../helpers/nginx.ts';
import {
  type NginxFamily,
  nginxFamilySkip,
  SHIPPED_PORTS,
  startNginxFamily,
} from '../helpers/nginx-family.ts';
import { runCli } from '../helpers/processes.ts';
import { until } from '../helpers/until.ts';

const BASE = '/api/v1';
const PASSWORD = 'correct horse battery';
/** Load: this many clients, each one request at a time, at most this many requests or this long in all. */
const CLIENTS = 6;
const MAX_REQUESTS = 40_000;
const MAX_LOAD_MS = 150_000;

type Phase = 'steady' | 'rolling restart' | 'database restart';

/** One answer nginx gave, with what the test was doing when it was asked and answered. */
interface Answer {
  kind: 'save' | 'read';
  /** A read's bookmark had been acknowledged (its save answered 200) before the read was sent. */
  acknowledged?: boolean;
  phases: Set<Phase>;
  status: number;
  contentType: string;
  retryAfter: string | null;
  body: string;
}

/**
 * The shipped nginx configuration (deploy/nginx/sintonia.conf, only its ports and, during a restart, one
 * process's `down` flag changed) in front of two `sintonia serve` processes on one PostgreSQL of its own,
 * under a bounded load of bookmark saves and reads: a rolling restart of both processes (docs/deployment.md's
 * procedure), then a restart of PostgreSQL. Every answer is the family's own (a 503 STORE_UNAVAILABLE with
 * Retry-After at most, during the database restart), and every save answered 2xx reads back at the end.
 */
describe('nginx in front of two processes on one PostgreSQL: rolling restart and database restart under load', {
  skip: nginxFamilySkip(),
  timeout: 600_000,
}, () => {
  let cluster: PostgresCluster;
  let family: NginxFamily;
  let nginx: NginxFamily['nginx'];
  let userHash = '';

  before(async () => {
    cluster = await startPostgres(postgresBin() as NonNullable<ReturnType<typeof postgresBin>>);
    family = await startNginxFamily({
      name: 'nginx',
      databaseUrl: cluster.url,
      account: 'ngx-1',
      email: 'ngx-1@example.test',
      password: PASSWORD,
      settings: (urls) => ({ PUBLIC_BASE_URL: urls[1] ?? '' }),
    });
    ({ nginx, userHash } = family);
  });

  after(async () => {
    await family?.stop();
    cluster?.stop();
  });

  const clientApi = (path: string) => `${nginx.urls[0]}${BASE}${path}`;

  it('answers the three services on their ports, and upgrades the Direct Line stream to a WebSocket', async () => {
    for (const [index, service] of ['client-api', 'assistant-auth', 'agents'].entries()) {
      const response = await fetch(`${nginx.urls[index]}/healthz`);
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as { service: string }).service, service);
      // /metrics stays on the private side: through the proxy it is not found, in the family's body.
      const metrics = await fetch(`${nginx.urls[index]}/metrics`);
      assert.equal(metrics.status, 404);
      assert.match(metrics.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(
        ((await metrics.json()) as { errors: Array<{ type: string }> }).errors[0]?.type,
        'ROUTE_NOT_FOUND',
      );
    }
    const secret = await runCli(['directline-secret'], family.envs[0] ?? {});
    assert.equal(secret.code, 0, secret.stderr);
    const started = await fetch(`${nginx.urls[1]}/v3/directline/conversations`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(JSON.parse(secret.stdout) as { secret: string }).secret}`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    const conversation = (await started.json()) as { streamUrl: string };
    assert.equal(started.status, 201, JSON.stringify(conversation));
    assert.ok(
      conversation.streamUrl.startsWith(`${nginx.urls[1]?.replace(/^http/, 'ws')}/`),
      conversation.streamUrl,
    );
    const socket = new WebSocket(conversation.streamUrl);
    const opened = await new Promise<number>((resolve, reject) => {
      socket.once('upgrade', (response) => resolve(response.statusCode ?? 0));
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`no upgrade: ${response.statusCode}`)),
      );
      socket.once('error', reject);
    });
    assert.equal(opened, 101);
    // The channel's first message on a new stream is its (empty) activity set or a keep-alive.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no message on the stream within 30 s')), 30_000);
      socket.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    socket.close();
  });

  it('a rolling restart of both processes and a PostgreSQL restart under load: only the family answers, no acknowledged save lost', async () => {
    // One device per client, each signed in through nginx.
    const tokens: string[] = [];
    for (let client = 0; client < CLIENTS; client++) {
      tokens.push(
        await deviceToken(clientApi(''), 'ngx-1@example.test', `ngx-tv-${client}`, { password: PASSWORD }),
      );
    }

    const phases = new Set<Phase>(['steady']);
    const answers: Answer[] = [];
    const acknowledged = new Map<number, number>();
    let stop = false;
    let sent = 0;
    const loadStarted = Date.now();
    // One keep-alive connection to nginx per client, as an app holds; `resent` counts the requests written on
    // an idle connection nginx closed as it reloaded, and sent again (test/helpers/nginx.ts).
    const http = Array.from({ length: CLIENTS }, () => keepAliveClient());
    let resent = 0;
    const ask = async (client: number, kind: Answer['kind'], method: string, path: string, token: string) => {
      const during = new Set(phases);
      let answer: Answer;
      try {
        const { resent: again, ...got } = await (http[client] ?? keepAliveClient()).send(
          clientApi(path),
          method,
          {
            authorization: `Bearer ${token}`,
          },
        );
        resent += again;
        answer = { kind, phases: during, ...got };
      } catch (error) {
        // nginx refused or cut the connection: no answer at all (status 0).
        answer = { kind, phases: during, status: 0, contentType: '', retryAfter: null, body: String(error) };
      }
      for (const phase of phases) during.add(phase);
      answers.push(answer);
      return answer;
    };
    const client = async (index: number) => {
      const token = tokens[index] ?? '';
      for (let round = 0; !stop && sent < MAX_REQUESTS && Date.now() - loadStarted < MAX_LOAD_MS; round++) {
        sent += 2;
        // A bookmark of its own per save (content ids by client and round), then a read of an earlier one.
        const contentId = 100_000 * (index + 1) + round;
        const offset = 1 + (round % 5000);
        const saved = await ask(
          index,
          'save',
          'POST',
          `/smarttv/ngx-tv-${index}/users/${userHash}/bookmarks/${contentId}/${offset}`,
          token,
        );
        if (saved.status >= 200 && saved.status < 300) acknowledged.set(contentId, offset);
        const earlier = 100_000 * (index + 1) + Math.floor(round / 2);
        const wasAcknowledged = acknowledged.has(earlier);
        const read = await ask(
          index,
          'read',
          'GET',
          `/smarttv/users/${userHash}/bookmarks/${earlier}`,
          token,
        );
        read.acknowledged = wasAcknowledged;
      }
    };
    const saves = () => answers.filter((answer) => answer.kind === 'save' && answer.status === 200).length;
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
    const running = () => !stop && sent < MAX_REQUESTS && Date.now() - loadStarted < MAX_LOAD_MS;

    try {
      await until(() => (saves() >= 50 || !running() ? true : undefined), 'the first saves', 60_000);

      // (a) Rolling restart, as docs/deployment.md tells an operator: each process in turn is marked `down`
      // in nginx (reload; nginx's old worker finishes what it had in flight and exits), gets SIGTERM, drains
      // and exits, starts again and is ready (/readyz 200), and is marked up again (reload); then the next.
      phases.add('rolling restart');
      for (const index of [0, 1]) {
        await nginx.reload(SHIPPED_PORTS[index] ?? []);
        assert.equal(await family.stopProcess(index), 0, `process ${index} exits 0 after SIGTERM`);
        await family.startProcess(index);
        await nginx.reload([]);
        const before = saves();
        await until(
          () => (saves() >= before + 50 || !running() ? true : undefined),
          'saves after the restart',
          60_000,
        );
      }
      phases.delete('rolling restart');

      // (b) PostgreSQL restart (fast: every session terminated) under the same load.
      phases.add('database restart');
      await cluster.restart();
      const before = saves();
      await until(
        () => (saves() >= before + 50 || !running() ? true : undefined),
        'saves after the database restart',
        60_000,
      );
      phases.delete('database restart');
      const after = saves();
      await until(() => (saves() >= after + 50 || !running() ? true : undefined), 'steady saves', 60_000);
    } finally {
      stop = true;
      await load;
      for (const connection of http) connection.close();
    }

    const count = (select: (answer: Answer) => boolean) => answers.filter(select).length;
    const byStatus: Record<string, number> = {};
    for (const answer of answers) {
      const key = `${answer.kind} ${answer.status}`;
      byStatus[key] = (byStatus[key] ?? 0) + 1;
    }
    // Diagnostic only: with the stopping process marked down, nginx should not need to retry anything.
    const retried = nginx.retriedRequests();
    process.stdout.write(
      `# nginx deployment: ${answers.length} requests through nginx, by answer ${JSON.stringify(byStatus)}; ` +
        `${retried} passed on to the other process after a connection error; ${resent} sent again on a new connection after nginx closed an idle ` +
        `one as it reloaded; ${acknowledged.size} saves acknowledged\n`,
    );
    assert.ok(answers.length < MAX_REQUESTS + CLIENTS * 2, 'bounded');

    // Every answer is the family's own JSON: no nginx page (502, 504, its HTML) and no cut connection; nothing
    // but 200, and 404 for a read of a bookmark whose save was refused, and 503 STORE_UNAVAILABLE with
    // Retry-After while the database restarted. A process marked down before it stops gets no request: no
    // save is sent to a process that is closing (docs/deployment.md, Rolling restart).
    const strange = answers.filter((answer) => {
      if (!answer.contentType.startsWith('application/json')) return true;
      if (answer.status === 200) return false;
      const body = JSON.parse(answer.body) as { errors?: { type?: string }[] };
      if (answer.status === 404 && answer.kind === 'read' && !answer.acknowledged) {
        return body.errors?.[0]?.type !== 'BOOKMARK_NOT_FOUND';
      }
      return !(
        answer.status === 503 &&
        answer.phases.has('database restart') &&
        answer.retryAfter !== null &&
        body.errors?.[0]?.type === 'STORE_UNAVAILABLE'
      );
    });
    assert.deepEqual(
      strange
        .slice(0, 5)
        .map(({ kind, status, body, phases: during }) => ({ kind, status, body, during: [...during] })),
      [],
      `${strange.length} answers that are not the family's`,
    );
    assert.ok(count((answer) => answer.phases.has('rolling restart')) > 0, 'load during the rolling restart');
    assert.ok(
      count((answer) => answer.phases.has('database restart')) > 0,
      'load during the database restart',
    );

    // No acknowledged save lost: each reads back, through either process.
    const missing: number[] = [];
    let index = 0;
    for (const [contentId, offset] of acknowledged) {
      const token = tokens[index++ % CLIENTS] ?? '';
      const response = await fetch(clientApi(`/smarttv/users/${userHash}/bookmarks/${contentId}`), {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await response.json()) as { offset?: number };
      if (response.status !== 200 || body.offset !== offset) missing.push(contentId);
    }
    assert.deepEqual(
      missing.slice(0, 10),
      [],
      `${missing.length} of ${acknowledged.size} acknowledged saves lost`,
    );
  });
});
