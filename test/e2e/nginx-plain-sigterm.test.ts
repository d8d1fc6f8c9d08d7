import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deviceToken } from '../helpers/household.ts';
import { keepAliveClient } from '../helpers/nginx.ts';
import { type NginxFamily, nginxFamilySkip, startNginxHousehold } from '../helpers/nginx-family.ts';
import { until } from '../helpers/until.ts';

const BASE = '/api/v1';
const CLIENTS = 6;
/** Saves sent in all: 10,000 for the figures of docs/deployment.md (SIGTERM_SAVES=10000), fewer in `npm test`. */
const SAVES = Number(process.env.SIGTERM_SAVES ?? 1500);

/**
 * The shipped nginx configuration in front of two processes on one PostgreSQL, and a rolling restart by
 * plain SIGTERM, as Kubernetes or systemd send it: nothing marks the process down in nginx first. While six
 * clients save bookmarks through nginx, the processes are restarted in turn, again and again, until SAVES
 * saves were sent: every save is answered 200 by the family, none by nginx's own 502, and each reads back.
 */
describe('nginx in front of two processes: a rolling restart by plain SIGTERM loses no save', {
  skip: nginxFamilySkip(),
  timeout: 1_800_000,
}, () => {
  let family: NginxFamily;
  let userHash = '';

  before(async () => {
    family = await startNginxHousehold('sigterm', 'sig-1');
    userHash = family.userHash;
  });

  after(async () => {
    await family?.stop();
  });

  it(`${SAVES} saves (at least) across rolling restarts by plain SIGTERM: each answered 200 by the family`, async () => {
    const clientApi = (path: string) => `${family.nginx.urls[0]}${BASE}${path}`;
    const tokens: string[] = [];
    for (let client = 0; client < CLIENTS; client++) {
      tokens.push(await deviceToken(clientApi(''), 'sig-1@example.test', `sig-tv-${client}`));
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
        assert.equal(await family.stopProcess(index), 0, `process ${index} exits 0 after SIGTERM`);
        await family.startProcess(index);
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
        `${family.nginx.retriedRequests()} passed on by nginx to the other process\n`,
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
