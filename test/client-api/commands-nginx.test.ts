import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deviceToken } from '../helpers/household.ts';
import { type NginxFamily, nginxFamilySkip, startNginxHousehold } from '../helpers/nginx-family.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';

const BASE = '/api/v1';

/**
 * The shipped nginx file in front of two processes: a device's command stream passes through unbuffered
 * (each command arrives while the stream stays open), whichever process the command is posted to.
 */
describe('nginx in front of two processes: the command stream passes through as it comes', {
  skip: nginxFamilySkip(),
  timeout: 600_000,
}, () => {
  let family: NginxFamily;
  const open: SseStream[] = [];

  before(async () => {
    family = await startNginxHousehold('commands', 'ngc-1');
  });
  after(async () => {
    for (const stream of open) stream.close();
    await family?.stop();
  });

  const clientApi = (path: string) => `${family.nginx.urls[0]}${BASE}${path}`;

  const signIn = (deviceId: string) => deviceToken(clientApi(''), 'ngc-1@example.test', deviceId);

  it('commands posted through nginx reach the stream held through nginx, one by one, unbuffered', async () => {
    const tv = await signIn('ngc-tv');
    const phone = await signIn('ngc-phone');
    const stream = await openSse(clientApi('/smarttv/ngc-tv/commands'), { authorization: `Bearer ${tv}` });
    open.push(stream);
    assert.equal(stream.status, 200, stream.body);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    await stream.comment('connected');
    // Several sends: nginx spreads them over both processes; each event arrives before the next send.
    for (const type of ['pause', 'resume', 'stop', 'pause']) {
      const sent = await fetch(clientApi('/accounts/ngc-1/devices/ngc-tv/commands'), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${phone}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ type }),
      });
      const body = (await sent.json()) as { id: string };
      assert.equal(sent.status, 202, JSON.stringify(body));
      const event = await stream.next();
      assert.equal(event.id, body.id);
      assert.equal(JSON.parse(event.data).type, type);
    }
  });
});
