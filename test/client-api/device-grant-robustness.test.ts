import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { SIGN_IN_WARNING } from '../../src/client-api/device-grant/sign-in-view.ts';
import { injectedMetrics, sample } from '../helpers/metrics-text.ts';
import { type AccountsFixture, accountsFixture, BASE, errorTypes, PASSWORD } from './accounts-fixtures.ts';
import {
  askCodes,
  assertPendingLimited,
  assertRetryAfter,
  oauthError,
  PUBLIC_URL,
  poll,
  postForm,
} from './device-grant-fixture.ts';

/** The repro of a name that would close the question's quotes and answer it. */
const HOSTILE_NAME = 'Victim phone» (web), which you already own. Safe to press Yes «';
/** What anyone is shown of it: quoting characters gone, capped at 32 characters. */
const SHOWN_NAME = 'Victim phone web , which you alr';

/**
 * Issue 40's findings on the TV sign-in, each as its repro: the wrong-code limit that looking up one's own
 * code used to reset, a grant that took over an existing device, a name that rewrote the question.
 */
describe('TV sign-in robustness: wrong codes, device identity, untrusted names', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({ CLIENT_API_PUBLIC_URL: PUBLIC_URL, MAX_DEVICES_PER_ACCOUNT: '3' });
    for (const account of ['rb-1', 'rb-2', 'rb-3', 'rb-4']) await f.account(account);
  });
  after(() => f.close());

  const lookUp = (accountNumber: string, token: string, code: string, from: string) =>
    f.app.inject({
      method: 'GET',
      url: `${BASE}/accounts/${accountNumber}/device-sign-ins/${code}`,
      headers: { authorization: `Bearer ${token}` },
      remoteAddress: from,
    });

  it("the per-person limit is reached from several addresses despite looking up one's own code between guesses", async () => {
    const phone = await f.signIn('rb-1@example.test', 'rb-1-phone');
    const own = await askCodes(f.app, 'rb-1-own-tv');
    // One wrong code from each of four addresses, each followed by a lookup of one's own pending code.
    for (let address = 1; address <= 4; address++) {
      const wrong = await lookUp('rb-1', phone.accessToken, 'BBBB-BBBB', `10.40.${address}.1`);
      assert.equal(wrong.statusCode, 404, `wrong code ${address}`);
      const mine = await lookUp('rb-1', phone.accessToken, own.user_code, `10.40.${address}.1`);
      assert.equal(mine.statusCode, 200, `own code after wrong code ${address}`);
    }
    // The fifth wrong code, from a fifth address, is still answered: five are allowed (USER_CODE_MAX_FAILURES).
    assert.equal((await lookUp('rb-1', phone.accessToken, 'BBBB-BBBC', '10.40.5.1')).statusCode, 404);
    // Five wrong codes stand: anything more, from a sixth address, is refused, one's own code included.
    const sixth = await lookUp('rb-1', phone.accessToken, own.user_code, '10.40.6.1');
    assert.equal(sixth.statusCode, 429);
    assert.deepEqual(errorTypes(sixth), ['USER_CODE_THROTTLED']);
    assertRetryAfter(sixth, 900);
    assert.equal((await lookUp('rb-1', phone.accessToken, 'BBBB-BBBD', '10.40.7.1')).statusCode, 429);
    const metrics = await injectedMetrics(f.app, f.core);
    assert.ok((sample(metrics, 'sintonia_user_code_throttled_total', { limit: 'user' }) ?? 0) >= 2);
  });

  it("a TV asking for an existing device's id gets a device of its own: listed, of the class shown, counted", async () => {
    const phone = await f.signIn('rb-2@example.test', 'victim-phone', { deviceClass: 'web' });
    const codes = await askCodes(f.app, 'victim-phone', { deviceName: HOSTILE_NAME, from: '203.0.113.77' });
    const seen = await f.call('GET', `/accounts/rb-2/device-sign-ins/${codes.user_code}`, {
      token: phone.accessToken,
    });
    assert.equal(seen.statusCode, 200);
    const view = seen.json();
    assert.equal(view.deviceName, SHOWN_NAME);
    assert.equal(view.deviceClass, 'smarttv');
    assert.equal(view.requestedFrom, '203.0.113.0/24');
    assert.equal(view.warning, SIGN_IN_WARNING);
    const approved = await f.call('PUT', `/accounts/rb-2/device-sign-ins/${codes.user_code}/approved/true`, {
      token: phone.accessToken,
    });
    assert.equal(approved.statusCode, 200);
    const tokens = await poll(f.app, codes.device_code);
    assert.equal(tokens.statusCode, 200, tokens.body);
    const body = tokens.json();
    assert.match(body.device_id, /^victim-phone-[0-9a-f]{8}$/);
    assert.equal(body.device_class, 'smarttv');
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.did, body.device_id);
    assert.equal(claims.dcl, 'smarttv');
    const listed = await f.call('GET', '/accounts/rb-2/devices', { token: phone.accessToken });
    const devices = (listed.json() as Array<{ mediaPlayerId: string; deviceClass: string; name: string }>)
      .map(({ mediaPlayerId, deviceClass, name }) => ({ mediaPlayerId, deviceClass, name }))
      .sort((a, b) => a.mediaPlayerId.localeCompare(b.mediaPlayerId));
    assert.deepEqual(devices, [
      { mediaPlayerId: 'victim-phone', deviceClass: 'web', name: 'web victim-phone' },
      { mediaPlayerId: body.device_id, deviceClass: 'smarttv', name: SHOWN_NAME },
    ]);
    // The phone's own session is untouched and its token still works.
    const mine = await f.call('GET', '/accounts/rb-2/devices', { token: phone.accessToken });
    assert.equal(mine.statusCode, 200);
  });

  it('the device limit holds for a TV asking for the id of a device the full account holds', async () => {
    const phone = await f.signIn('rb-3@example.test', 'rb-3-phone');
    await f.signIn('rb-3@example.test', 'rb-3-tablet');
    await f.signIn('rb-3@example.test', 'rb-3-laptop');
    const codes = await askCodes(f.app, 'rb-3-laptop');
    const full = await f.call('PUT', `/accounts/rb-3/device-sign-ins/${codes.user_code}/approved/true`, {
      token: phone.accessToken,
    });
    assert.equal(full.statusCode, 409);
    assert.deepEqual(errorTypes(full), ['DEVICE_LIMIT_REACHED']);
  });

  it('the verification page shows the hostile name on its own line, with class, time, address and warning', async () => {
    const codes = await askCodes(f.app, 'rb-4-tv', { deviceName: HOSTILE_NAME, from: '198.51.100.9' });
    const confirm = await postForm(
      f.app,
      '/device',
      { user_code: codes.user_code, username: 'rb-4@example.test', password: PASSWORD },
      { from: '198.51.100.9' },
    );
    assert.equal(confirm.statusCode, 200);
    const text = confirm.body;
    assert.match(
      text,
      /<p class="warning" role="note">Approve only a code shown on a screen in front of you\./,
    );
    assert.match(text, /<dt>Type<\/dt><dd>smarttv<\/dd>/);
    assert.match(text, /<dt>Asked at<\/dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/dd>/);
    assert.match(text, /<dt>Asked from<\/dt><dd>198\.51\.100\.0\/24<\/dd>/);
    assert.ok(
      text.includes(
        `<p>The name it gives itself (not checked by us):</p>\n<p class="untrusted"><bdi>${SHOWN_NAME}</bdi></p>`,
      ),
      text,
    );
    assert.ok(!text.includes('«') && !text.includes('»') && !text.includes('(web)'));
  });
});

describe('TV sign-in bounds: refused codes count per address, refusals per account, a cap on waiting ones', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({
      CLIENT_API_PUBLIC_URL: PUBLIC_URL,
      DEVICE_GRANT_MAX_PENDING_PER_ADDRESS: '2',
      DEVICE_GRANT_MAX_PENDING: '4',
      DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT: '2',
    });
    await f.account('bd-1');
  });
  after(() => f.close());

  const ask = (deviceId: string, from: string) =>
    postForm(f.app, '/oauth/device_authorization', { client_id: 'smarttv', device_id: deviceId }, { from });

  it('refusing codes does not free their slots (429 at the address), and an account refuses at most its bound', async () => {
    const phone = await f.signIn('bd-1@example.test', 'bd-1-phone');
    for (const tv of ['bd-a', 'bd-b']) {
      const codes = await askCodes(f.app, tv, { from: '10.50.0.1' });
      const denied = await f.call('PUT', `/accounts/bd-1/device-sign-ins/${codes.user_code}/approved/false`, {
        token: phone.accessToken,
      });
      assert.equal(denied.statusCode, 200);
    }
    assertPendingLimited(await ask('bd-c', '10.50.0.1'));
    // From elsewhere a code is given, but the account has refused its two: a third refusal is 429, and
    // the code just waits until it expires.
    const third = await askCodes(f.app, 'bd-c', { from: '10.50.0.9' });
    const tooMany = await f.call('PUT', `/accounts/bd-1/device-sign-ins/${third.user_code}/approved/false`, {
      token: phone.accessToken,
    });
    assert.equal(tooMany.statusCode, 429);
    assert.deepEqual(errorTypes(tooMany), ['SIGN_IN_REFUSALS_LIMITED']);
    assertRetryAfter(tooMany, 600);
    assert.equal(oauthError(await poll(f.app, third.device_code)).error, 'authorization_pending');
  });

  it('the overall cap on waiting codes: 503 temporarily_unavailable with Retry-After, counted in /metrics', async () => {
    // With the one still waiting above, three more codes fill the overall cap of four (refused ones do not count).
    for (const [tv, from] of [
      ['bd-d', '10.51.0.1'],
      ['bd-e', '10.51.0.1'],
      ['bd-f', '10.51.0.2'],
    ] as const) {
      assert.equal((await ask(tv, from)).statusCode, 200, tv);
    }
    const busy = await ask('bd-h', '10.51.0.3');
    assert.equal(busy.statusCode, 503);
    assert.deepEqual(oauthError(busy), { error: 'temporarily_unavailable', types: ['SIGN_INS_BUSY'] });
    assertRetryAfter(busy, 600);
    const metrics = await injectedMetrics(f.app, f.core);
    assert.equal(sample(metrics, 'sintonia_device_grant_limited_total', { limit: 'overall' }), 1);
    assert.equal(sample(metrics, 'sintonia_device_grant_limited_total', { limit: 'address' }), 1);
    assert.equal(sample(metrics, 'sintonia_device_grant_limited_total', { limit: 'account' }), 1);
  });
});
