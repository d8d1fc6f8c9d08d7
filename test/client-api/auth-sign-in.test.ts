import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import { type AccountsFixture, accountsFixture, BASE, errorTypes, PASSWORD } from './accounts-fixtures.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('client-api sign-in: …/users/authenticate', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture();
    await f.account('auth-1');
  });
  after(() => f.close());

  const authenticate = (payload: unknown, query = '', deviceClass = 'smarttv') =>
    f.app.inject({
      method: 'POST',
      url: `${BASE}/auth/${deviceClass}/users/authenticate${query}`,
      payload: payload as object,
    });

  describe('POST …/users/authenticate', () => {
    describe('happy', () => {
      it('registers the device on first sight, opens a session and returns the user and tokens', async () => {
        const response = await authenticate({
          username: 'AUTH-1@example.test',
          password: PASSWORD,
          deviceId: 'tv-1',
          deviceName: 'Bedroom',
        });
        assert.equal(response.statusCode, 200);
        const body = response.json();
        assert.equal(body.user.accountNumber, 'auth-1');
        assert.equal(body.tokens.tokenType, 'Bearer');
        assert.equal(body.tokens.expiresIn, 900);
        assert.equal(body.tokens.qspVersion, 'V3');
        assert.match(body.tokens.refreshToken, /^rt1\./);
        const header = decodeProtectedHeader(body.tokens.accessToken);
        assert.equal(header.alg, 'ES256');
        assert.ok(typeof header.kid === 'string' && header.kid.length > 0);
        const device = await f.call('GET', '/accounts/auth-1/devices/tv-1', {
          token: body.tokens.accessToken,
        });
        assert.equal(device.json().name, 'Bedroom');
        assert.equal(device.json().deviceClass, 'smarttv');
      });

      it('auth-only=true checks the credentials: no tokens, no device', async () => {
        const response = await authenticate(
          { username: 'auth-1@example.test', password: PASSWORD, deviceId: 'never-seen' },
          '?auth-only=true',
        );
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().tokens, undefined);
        assert.equal(response.json().user.email, 'auth-1@example.test');
        const device = await f.call('GET', '/accounts/auth-1/devices/never-seen', { key: f.operatorKey });
        assert.equal(device.statusCode, 404);
      });
    });

    describe('errors', () => {
      it('400 for a missing field, a too long deviceId or deviceClass, a bad qspVersion', async () => {
        const missing = await authenticate({ username: 'auth-1@example.test', deviceId: 'tv-1' });
        assert.equal(missing.statusCode, 400);
        assert.match(missing.json().errors[0].message, /password/);
        const longId = await authenticate({
          username: 'auth-1@example.test',
          password: PASSWORD,
          deviceId: 'd'.repeat(49),
        });
        assert.equal(longId.statusCode, 400);
        const longClass = await authenticate(
          { username: 'auth-1@example.test', password: PASSWORD, deviceId: 'tv-1' },
          '',
          'c'.repeat(25),
        );
        assert.equal(longClass.statusCode, 400);
        const badQsp = await authenticate(
          { username: 'auth-1@example.test', password: PASSWORD, deviceId: 'tv-1' },
          '?qspVersion=V7',
        );
        assert.equal(badQsp.statusCode, 400);
        assert.deepEqual(errorTypes(badQsp), ['VALIDATION_ERROR']);
      });
    });

    describe('security', () => {
      it('401 CREDENTIALS_INVALID for a wrong password or an unknown user (same answer), naming the form as the way in', async () => {
        const wrong = await authenticate({
          username: 'auth-1@example.test',
          password: 'nope',
          deviceId: 'tv-1',
        });
        const unknown = await authenticate({
          username: 'ghost@example.test',
          password: 'nope',
          deviceId: 'tv-1',
        });
        for (const response of [wrong, unknown]) {
          assert.equal(response.statusCode, 401);
          assert.equal(response.headers['www-authenticate'], 'Form realm="sintonia"');
          assert.deepEqual(response.json(), {
            code: 'UNAUTHORIZED',
            message: 'The user name or password is wrong.',
            errors: [{ type: 'CREDENTIALS_INVALID', message: 'The user name or password is wrong.' }],
          });
        }
      });

      it('403 DEVICE_DISABLED for a disabled device', async () => {
        await f.signIn('auth-1@example.test', 'tv-off');
        await f.call('PUT', '/accounts/auth-1/devices/tv-off/enabled/false', { key: f.operatorKey });
        const response = await authenticate({
          username: 'auth-1@example.test',
          password: PASSWORD,
          deviceId: 'tv-off',
        });
        assert.equal(response.statusCode, 403);
        assert.deepEqual(errorTypes(response), ['DEVICE_DISABLED']);
      });
    });
  });

  describe('GET/HEAD …/users/authenticate (HTTP Basic)', () => {
    const url = `${BASE}/auth/web/users/authenticate`;

    describe('happy', () => {
      it('GET 200 and HEAD 204 with valid credentials', async () => {
        const get = await f.app.inject({
          method: 'GET',
          url,
          headers: { authorization: basic('auth-1@example.test', PASSWORD) },
        });
        assert.equal(get.statusCode, 200);
        assert.equal(get.json().authenticated, true);
        assert.equal(get.json().accountNumber, 'auth-1');
        const head = await f.app.inject({
          method: 'HEAD',
          url,
          headers: { authorization: basic('auth-1@example.test', PASSWORD) },
        });
        assert.equal(head.statusCode, 204);
        assert.equal(head.body, '');
      });
    });

    describe('errors', () => {
      it('405 with Allow for any other method', async () => {
        for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'] as const) {
          const response = await f.app.inject({ method, url });
          assert.equal(response.statusCode, 405, method);
          assert.equal(response.headers.allow, 'GET, HEAD, POST');
          assert.equal(response.json().code, 'METHOD_NOT_ALLOWED');
        }
      });
    });

    describe('security', () => {
      it('401 with WWW-Authenticate: Basic for wrong or missing credentials', async () => {
        for (const method of ['GET', 'HEAD'] as const) {
          for (const headers of [
            {},
            { authorization: basic('auth-1@example.test', 'wrong') },
            { authorization: 'Basic !!!' },
          ]) {
            const response = await f.app.inject({ method, url, headers });
            assert.equal(response.statusCode, 401, `${method} ${JSON.stringify(headers)}`);
            assert.match(String(response.headers['www-authenticate']), /^Basic realm="sintonia"/);
          }
        }
      });
    });
  });
});
