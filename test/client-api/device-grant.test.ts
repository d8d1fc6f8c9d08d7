import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIGN_IN_WARNING } from '../../src/client-api/device-grant/sign-in-view.ts';
import { type AccountsFixture, accountsFixture, BASE, errorTypes } from './accounts-fixtures.ts';
import {
  askCodes,
  assertPendingLimited,
  assertRetryAfter,
  DEVICE_CODE_GRANT,
  oauthError,
  PUBLIC_URL,
  poll,
  postForm,
  USER_CODE_SHAPE,
} from './device-grant-fixture.ts';

describe('TV sign-in with a code: the device authorization grant (RFC 8628)', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({ CLIENT_API_PUBLIC_URL: PUBLIC_URL, MAX_DEVICES_PER_ACCOUNT: '3' });
    for (const account of ['tv-1', 'tv-2', 'tv-3', 'tv-4', 'tv-5', 'tv-6', 'tv-7', 'tv-8', 'tv-9', 'tv-10']) {
      await f.account(account);
    }
  });
  after(() => f.close());

  describe('happy', () => {
    it('publishes RFC 8414 metadata naming both endpoints, the grant type and the key set', async () => {
      const response = await f.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        issuer: PUBLIC_URL,
        device_authorization_endpoint: `${PUBLIC_URL}${BASE}/oauth/device_authorization`,
        token_endpoint: `${PUBLIC_URL}${BASE}/oauth/token`,
        jwks_uri: `${PUBLIC_URL}/.well-known/jwks.json`,
        grant_types_supported: [DEVICE_CODE_GRANT, 'refresh_token'],
        response_types_supported: [],
        token_endpoint_auth_methods_supported: ['none'],
      });
    });

    it('a TV gets a device code, a XXXX-XXXX user code, the page, 600 s and a 5 s interval', async () => {
      const response = await postForm(f.app, '/oauth/device_authorization', {
        client_id: 'smarttv',
        device_id: 'living-room',
        device_name: 'Living room TV',
        unknown_parameter: 'ignored',
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['cache-control'], 'no-store');
      const codes = response.json();
      assert.match(codes.user_code, USER_CODE_SHAPE);
      assert.ok(codes.device_code.length >= 40);
      assert.equal(codes.verification_uri, `${PUBLIC_URL}${BASE}/device`);
      assert.equal(
        codes.verification_uri_complete,
        `${PUBLIC_URL}${BASE}/device?user_code=${codes.user_code}`,
      );
      assert.equal(codes.expires_in, 600);
      assert.equal(codes.interval, 5);
    });

    it('a signed-in phone of the account sees the TV, approves it; the TV polls its tokens, once', async () => {
      const phone = await f.signIn('tv-1@example.test', 'phone-1', { deviceClass: 'android' });
      const codes = await askCodes(f.app, 'tv-bedroom', { deviceName: 'Bedroom <TV>' });
      const typed = codes.user_code.replace('-', ' ').toLowerCase();
      const seen = await f.call('GET', `/accounts/tv-1/device-sign-ins/${encodeURIComponent(typed)}`, {
        token: phone.accessToken,
      });
      assert.equal(seen.statusCode, 200);
      assert.deepEqual(
        {
          ...(seen.json() as object),
          expiresAt: undefined,
          requestedAt: undefined,
          requestedFrom: undefined,
        },
        {
          userCode: codes.user_code,
          deviceClass: 'smarttv',
          deviceId: 'tv-bedroom',
          // The TV's own word, shown as untrusted text: no quoting or bracketing characters.
          deviceName: 'Bedroom TV',
          status: 'pending',
          requestedFrom: undefined,
          warning: SIGN_IN_WARNING,
          expiresAt: undefined,
          requestedAt: undefined,
        },
      );
      assert.ok(Math.abs(Date.parse(seen.json().requestedAt) - Date.now()) < 60_000);
      assert.match(seen.json().requestedFrom, /^10\.250\.\d+\.0\/24$/, 'the /24 the fixture asked from');
      const approved = await f.call(
        'PUT',
        `/accounts/tv-1/device-sign-ins/${codes.user_code}/approved/true`,
        {
          token: phone.accessToken,
        },
      );
      assert.equal(approved.statusCode, 200);
      assert.equal(approved.json().status, 'approved');

      const tokens = await poll(f.app, codes.device_code);
      assert.equal(tokens.statusCode, 200);
      assert.equal(tokens.headers['cache-control'], 'no-store');
      const body = tokens.json();
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.device_id, 'tv-bedroom', 'the id it asked for, free in the account');
      assert.equal(body.device_class, 'smarttv');
      assert.equal(body.expires_in, 900);
      // The TV's token works on its account and names it as a device of the account.
      const list = await f.call('GET', '/accounts/tv-1/devices', { token: body.access_token });
      assert.equal(list.statusCode, 200);
      const tv = list
        .json()
        .find((device: { mediaPlayerId: string }) => device.mediaPlayerId === 'tv-bedroom');
      assert.equal(tv.name, 'Bedroom TV');
      assert.equal(tv.deviceClass, 'smarttv');
      // Its refresh token works as a password sign-in's does.
      const refreshed = await f.app.inject({
        method: 'GET',
        url: `${BASE}/auth/devices/smarttv/tv-bedroom/tokens`,
        headers: { authorization: `Bearer ${body.refresh_token}` },
      });
      assert.equal(refreshed.statusCode, 200);

      // Single use: the code gives tokens once, and the user code is spent.
      assert.deepEqual(oauthError(await poll(f.app, codes.device_code)), {
        error: 'invalid_grant',
        types: ['DEVICE_CODE_INVALID'],
      });
      const again = await f.call('PUT', `/accounts/tv-1/device-sign-ins/${codes.user_code}/approved/true`, {
        token: phone.accessToken,
      });
      assert.equal(again.statusCode, 404);
      assert.deepEqual(errorTypes(again), ['USER_CODE_INVALID']);

      // Sign-out closes the TV's session: its access token is refused from then on.
      const signOut = await f.call('DELETE', '/accounts/tv-1/devices/tv-bedroom/sessions', {
        token: phone.accessToken,
      });
      assert.equal(signOut.statusCode, 204);
      const refused = await f.call('GET', '/accounts/tv-1/devices', { token: refreshed.json().accessToken });
      assert.equal(refused.statusCode, 401);
    });

    it('a refusal is access_denied at the next poll', async () => {
      const phone = await f.signIn('tv-2@example.test', 'phone-2');
      const codes = await askCodes(f.app, 'tv-denied');
      const denied = await f.call('PUT', `/accounts/tv-2/device-sign-ins/${codes.user_code}/approved/false`, {
        token: phone.accessToken,
      });
      assert.equal(denied.statusCode, 200);
      assert.equal(denied.json().status, 'denied');
      const answer = await poll(f.app, codes.device_code);
      assert.equal(answer.statusCode, 400);
      assert.deepEqual(oauthError(answer), { error: 'access_denied', types: ['SIGN_IN_DENIED'] });
    });

    it('the retention job removes codes expired more than a lifetime ago, and only those', async () => {
      const old = await f.api.deviceGrants.authorize(
        { client_id: 'smarttv', device_id: 'tv-forgotten' },
        '10.9.9.8',
        Date.now() - 1_300_000,
      );
      const lately = await f.api.deviceGrants.authorize(
        { client_id: 'smarttv', device_id: 'tv-lately' },
        '10.9.9.8',
        Date.now() - 700_000,
      );
      for (const codes of [old, lately]) {
        assert.equal(oauthError(await poll(f.app, codes.device_code)).error, 'expired_token');
      }
      await f.api.retention.runOnce();
      assert.equal(oauthError(await poll(f.app, old.device_code)).error, 'invalid_grant');
      assert.equal(oauthError(await poll(f.app, lately.device_code)).error, 'expired_token');
    });
  });

  describe('errors', () => {
    it('refuses bad device authorization requests in the OAuth error body', async () => {
      const unknown = await postForm(f.app, '/oauth/device_authorization', {
        client_id: 'toaster',
        device_id: 'x',
      });
      assert.equal(unknown.statusCode, 400);
      assert.deepEqual(oauthError(unknown), { error: 'invalid_client', types: ['OAUTH_CLIENT_UNKNOWN'] });
      const missing = await postForm(f.app, '/oauth/device_authorization', { client_id: 'smarttv' });
      assert.equal(missing.statusCode, 400);
      assert.equal(oauthError(missing).error, 'invalid_request');
      assert.deepEqual(oauthError(missing).types, ['VALIDATION_ERROR']);
      const twice = await f.app.inject({
        method: 'POST',
        url: `${BASE}/oauth/device_authorization`,
        payload: 'client_id=smarttv&client_id=stb&device_id=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.deepEqual(oauthError(twice), { error: 'invalid_request', types: ['OAUTH_REQUEST_INVALID'] });
      const json = await f.app.inject({
        method: 'POST',
        url: `${BASE}/oauth/device_authorization`,
        payload: { client_id: 'smarttv', device_id: 'x' },
      });
      assert.equal(json.statusCode, 400);
      assert.deepEqual(oauthError(json), { error: 'invalid_request', types: ['OAUTH_REQUEST_INVALID'] });
      const body = json.json();
      assert.equal(body.code, 'BAD_REQUEST');
      assert.equal(typeof body.error_description, 'string');
    });

    it('answers every RFC error of the token endpoint', async () => {
      const codes = await askCodes(f.app, 'errors-tv');
      const wrongType = await postForm(f.app, '/oauth/token', {
        grant_type: 'password',
        device_code: codes.device_code,
        client_id: 'smarttv',
      });
      assert.deepEqual(oauthError(wrongType), {
        error: 'unsupported_grant_type',
        types: ['OAUTH_GRANT_TYPE_UNSUPPORTED'],
      });
      const noCode = await postForm(f.app, '/oauth/token', {
        grant_type: DEVICE_CODE_GRANT,
        client_id: 'smarttv',
      });
      assert.deepEqual(oauthError(noCode), { error: 'invalid_request', types: ['OAUTH_REQUEST_INVALID'] });
      const noClient = await postForm(f.app, '/oauth/token', {
        grant_type: DEVICE_CODE_GRANT,
        device_code: codes.device_code,
      });
      assert.equal(oauthError(noClient).error, 'invalid_request');
      assert.deepEqual(oauthError(await poll(f.app, codes.device_code, 'toaster')), {
        error: 'invalid_client',
        types: ['OAUTH_CLIENT_UNKNOWN'],
      });
      assert.deepEqual(oauthError(await poll(f.app, 'no-such-code')), {
        error: 'invalid_grant',
        types: ['DEVICE_CODE_INVALID'],
      });
      // Another client's code is not this client's.
      assert.deepEqual(oauthError(await poll(f.app, codes.device_code, 'stb')), {
        error: 'invalid_grant',
        types: ['DEVICE_CODE_INVALID'],
      });
      const pending = await poll(f.app, codes.device_code);
      assert.equal(pending.statusCode, 400);
      assert.equal(pending.headers['cache-control'], 'no-store');
      assert.deepEqual(oauthError(pending), {
        error: 'authorization_pending',
        types: ['AUTHORIZATION_PENDING'],
      });
      const tooFast = await poll(f.app, codes.device_code);
      assert.deepEqual(oauthError(tooFast), { error: 'slow_down', types: ['POLLING_TOO_FAST'] });
      assert.match(tooFast.json().error_description, /10 seconds/);
      // The interval grew: the next immediate poll is too fast again, now by 15 s.
      assert.match((await poll(f.app, codes.device_code)).json().error_description, /15 seconds/);
    });

    it('an expired code is expired_token to the TV and unknown to a person', async () => {
      const phone = await f.signIn('tv-2@example.test', 'phone-2b');
      // Asked eleven minutes ago: the real service, with its clock set back.
      const codes = await f.api.deviceGrants.authorize(
        { client_id: 'smarttv', device_id: 'tv-old' },
        '10.9.9.9',
        Date.now() - 660_000,
      );
      assert.deepEqual(oauthError(await poll(f.app, codes.device_code)), {
        error: 'expired_token',
        types: ['DEVICE_CODE_EXPIRED'],
      });
      const late = await f.call('PUT', `/accounts/tv-2/device-sign-ins/${codes.user_code}/approved/true`, {
        token: phone.accessToken,
      });
      assert.equal(late.statusCode, 404);
      assert.deepEqual(errorTypes(late), ['USER_CODE_INVALID']);
      // Removed by the retention job once expired a lifetime ago (DEVICE_GRANT_TTL); then the code is unknown.
      const pass = await f.api.retention.runOnce(Date.now() + 600_000);
      assert.ok((pass.removed['device_grants (expired)'] ?? 0) >= 1, JSON.stringify(pass));
      assert.deepEqual(oauthError(await poll(f.app, codes.device_code)).error, 'invalid_grant');
    });

    it('the device limit: approval is refused when the account is full, and a poll after it filled is access_denied', async () => {
      const phone = await f.signIn('tv-3@example.test', 'phone-3');
      await f.signIn('tv-3@example.test', 'tablet-3');
      const codes = await askCodes(f.app, 'tv-third');
      const approved = await f.call(
        'PUT',
        `/accounts/tv-3/device-sign-ins/${codes.user_code}/approved/true`,
        {
          token: phone.accessToken,
        },
      );
      assert.equal(approved.statusCode, 200);
      // Between the approval and the poll, a third device signs in with a password: the account is full.
      await f.signIn('tv-3@example.test', 'laptop-3');
      const answer = await poll(f.app, codes.device_code);
      assert.deepEqual(oauthError(answer), { error: 'access_denied', types: ['DEVICE_LIMIT_REACHED'] });
      const next = await askCodes(f.app, 'tv-fourth');
      const full = await f.call('PUT', `/accounts/tv-3/device-sign-ins/${next.user_code}/approved/true`, {
        token: phone.accessToken,
      });
      assert.equal(full.statusCode, 409);
      assert.deepEqual(errorTypes(full), ['DEVICE_LIMIT_REACHED']);
      // Refusing is still possible.
      const denied = await f.call('PUT', `/accounts/tv-3/device-sign-ins/${next.user_code}/approved/false`, {
        token: phone.accessToken,
      });
      assert.equal(denied.statusCode, 200);
    });
  });

  describe('security', () => {
    it('wrong codes are throttled per person: five, then 429 with Retry-After even for the right code', async () => {
      const phone = await f.signIn('tv-4@example.test', 'phone-4');
      const codes = await askCodes(f.app, 'tv-guessed');
      for (let guess = 0; guess < 5; guess++) {
        const wrong = await f.call('GET', `/accounts/tv-4/device-sign-ins/BBBB-BBB${'CDFGH'[guess]}`, {
          token: phone.accessToken,
        });
        assert.equal(wrong.statusCode, 404);
        assert.deepEqual(errorTypes(wrong), ['USER_CODE_INVALID']);
      }
      const right = await f.call('GET', `/accounts/tv-4/device-sign-ins/${codes.user_code}`, {
        token: phone.accessToken,
      });
      assert.equal(right.statusCode, 429);
      assert.deepEqual(errorTypes(right), ['USER_CODE_THROTTLED']);
      assertRetryAfter(right, 900);
    });

    it('wrong codes are throttled per address across people: 20, then 429 for anyone there', async () => {
      const guess = (accountNumber: string, token: string, code: string, from: string) =>
        f.app.inject({
          method: 'GET',
          url: `${BASE}/accounts/${accountNumber}/device-sign-ins/${code}`,
          headers: { authorization: `Bearer ${token}` },
          remoteAddress: from,
        });
      const people = ['tv-6', 'tv-7', 'tv-8', 'tv-9', 'tv-10'];
      const phones = await Promise.all(people.map((account) => f.signIn(`${account}@example.test`, 'phone')));
      // Four wrong codes each (under the per-person limit of 5), all from one address: 20.
      for (const [index, account] of people.entries()) {
        for (let attempt = 0; attempt < 4; attempt++) {
          const wrong = await guess(account, phones[index]?.accessToken ?? '', 'BBBB-BBBB', '10.8.0.1');
          assert.equal(wrong.statusCode, 404);
        }
      }
      const codes = await askCodes(f.app, 'tv-crowded');
      const refused = await guess('tv-6', phones[0]?.accessToken ?? '', codes.user_code, '10.8.0.1');
      assert.equal(refused.statusCode, 429);
      assert.deepEqual(errorTypes(refused), ['USER_CODE_THROTTLED']);
      // The same person from another address still finds it.
      const elsewhere = await guess('tv-6', phones[0]?.accessToken ?? '', codes.user_code, '10.8.0.2');
      assert.equal(elsewhere.statusCode, 200);
    });

    it('a device of another account, an operator and a token without the account are refused', async () => {
      const other = await f.signIn('tv-5@example.test', 'phone-5');
      const codes = await askCodes(f.app, 'tv-private');
      const foreign = await f.call('PUT', `/accounts/tv-1/device-sign-ins/${codes.user_code}/approved/true`, {
        token: other.accessToken,
      });
      assert.equal(foreign.statusCode, 403);
      const operator = await f.call(
        'PUT',
        `/accounts/tv-5/device-sign-ins/${codes.user_code}/approved/true`,
        {
          key: f.operatorKey,
        },
      );
      assert.equal(operator.statusCode, 403);
      assert.deepEqual(errorTypes(operator), ['ACCESS_DENIED']);
      const anonymous = await f.call('GET', `/accounts/tv-5/device-sign-ins/${codes.user_code}`);
      assert.equal(anonymous.statusCode, 401);
      // None of them decided it.
      assert.equal(oauthError(await poll(f.app, codes.device_code)).error, 'authorization_pending');
    });

    it('limits the codes waiting per client address (5): 429 temporarily_unavailable with Retry-After', async () => {
      for (let tv = 0; tv < 5; tv++) await askCodes(f.app, `flood-${tv}`, { from: '10.7.0.1' });
      const refused = await postForm(
        f.app,
        '/oauth/device_authorization',
        { client_id: 'smarttv', device_id: 'flood-5' },
        { from: '10.7.0.1' },
      );
      assertPendingLimited(refused);
      await askCodes(f.app, 'flood-elsewhere', { from: '10.7.0.2' });
    });
  });
});
