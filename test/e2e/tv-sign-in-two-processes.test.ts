import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { deviceToken, HOUSEHOLD_PASSWORD, householdAccount } from '../helpers/household.ts';
import { serveClientApis } from '../helpers/processes.ts';

const BASE = '/api/v1';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * Two real `sintonia serve` processes on one store (PostgreSQL in the suite's second pass), as behind a
 * load balancer: a TV's codes asked of one are approved through the other and polled on either; the
 * polling pace, the approval and the single redemption hold across both.
 */
describe('TV sign-in across two client-api processes on one store', () => {
  let core: TestCore;
  let phone = '';
  let urls: string[] = [];
  let stopServing = async () => {};

  before(async () => {
    core = await createTestCore({ SINTONIA_DEMO: '0' });
    await householdAccount(core, { accountNumber: 'tv2p-1', email: 'tv2p@example.test', profiles: [] });
    ({ urls, stop: stopServing } = await serveClientApis(core.env));
    phone = await deviceToken(url(0, ''), 'tv2p@example.test', 'phone', { deviceClass: 'android' });
  });

  after(async () => {
    await stopServing();
    await core.dispose();
  });

  function url(which: number, path: string) {
    return `${urls[which] ?? ''}${BASE}${path}`;
  }
  const form = async (which: number, path: string, fields: Record<string, string>) => {
    const response = await fetch(url(which, path), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    const text = await response.text();
    return { status: response.status, text, body: text.startsWith('{') ? JSON.parse(text) : {} };
  };
  const askCodes = async (which: number, deviceId: string) => {
    const answer = await form(which, '/oauth/device_authorization', {
      client_id: 'smarttv',
      device_id: deviceId,
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as { device_code: string; user_code: string; interval: number };
  };
  const poll = (which: number, deviceCode: string) =>
    form(which, '/oauth/token', { grant_type: GRANT, device_code: deviceCode, client_id: 'smarttv' });
  const approve = (which: number, userCode: string) =>
    fetch(url(which, `/accounts/tv2p-1/device-sign-ins/${userCode}/approved/true`), {
      method: 'PUT',
      headers: { authorization: `Bearer ${phone}` },
    }).then((response) => response.status);
  const wait = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 200));

  it('asked of one, approved through the other, polled on either: the pace and the single use hold', async () => {
    const codes = await askCodes(0, 'tv-across');
    assert.equal((await poll(1, codes.device_code)).body.error, 'authorization_pending');
    // The other process knows it was just polled: too fast, and the interval grows by 5 s for both.
    const tooFast = await poll(0, codes.device_code);
    assert.equal(tooFast.body.error, 'slow_down');
    assert.equal(await approve(1, codes.user_code), 200);
    await wait(codes.interval + 5);
    const tokens = await poll(0, codes.device_code);
    assert.equal(tokens.status, 200, tokens.text);
    const devices = await fetch(url(1, '/accounts/tv2p-1/devices/tv-across'), {
      headers: { authorization: `Bearer ${tokens.body.access_token}` },
    });
    assert.equal(devices.status, 200);
    // Redeemed once: the other process refuses the code however late it is asked.
    assert.equal((await poll(1, codes.device_code)).body.error, 'invalid_grant');
  });

  it('two polls at once on both processes: exactly one gets the tokens', async () => {
    const codes = await askCodes(1, 'tv-race');
    assert.equal(await approve(0, codes.user_code), 200);
    const answers = await Promise.all([poll(0, codes.device_code), poll(1, codes.device_code)]);
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 400], answers.map((answer) => answer.text).join('\n'));
    const refused = answers.find((answer) => answer.status === 400);
    assert.ok(['invalid_grant', 'slow_down'].includes(refused?.body.error), refused?.text);
  });

  it("the verification page's two steps may land on different processes", async () => {
    const codes = await askCodes(0, 'tv-page-across');
    const confirm = await form(0, '/device', {
      user_code: codes.user_code,
      username: 'tv2p@example.test',
      password: HOUSEHOLD_PASSWORD,
    });
    assert.equal(confirm.status, 200);
    const ticket = /name="ticket" value="([^"]+)"/.exec(confirm.text)?.[1] ?? '';
    const done = await form(1, '/device/decision', { ticket, decision: 'approve' });
    assert.equal(done.status, 200);
    assert.match(done.text, /Your TV is signed in/);
    const tokens = await poll(1, codes.device_code);
    assert.equal(tokens.status, 200, tokens.text);
  });
});
