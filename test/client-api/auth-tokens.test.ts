import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { type AccountsFixture, accountsFixture, BASE, errorTypes, PASSWORD } from './accounts-fixtures.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('client-api device authentication', () => {
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
      const device = await f.call('GET', '/accounts/auth-1/devices/tv-1', { token: body.tokens.accessToken });
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

    it('401 CREDENTIALS_INVALID for a wrong password or an unknown user (same answer)', async () => {
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
        assert.deepEqual(response.json(), {
          code: 'UNAUTHORIZED',
          message: 'The user name or password is wrong.',
          errors: [{ type: 'CREDENTIALS_INVALID', message: 'The user name or password is wrong.' }],
        });
      }
    });

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

  describe('GET/HEAD …/users/authenticate (HTTP Basic)', () => {
    const url = `${BASE}/auth/web/users/authenticate`;
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

    it('405 with Allow for any other method', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH'] as const) {
        const response = await f.app.inject({ method, url });
        assert.equal(response.statusCode, 405, method);
        assert.equal(response.headers.allow, 'GET, HEAD, POST');
        assert.equal(response.json().code, 'METHOD_NOT_ALLOWED');
      }
    });
  });

  describe('…/tokens and …/userInfo', () => {
    it('rotate the refresh token: each works once; tier, scope and sessionUserProfile go into the token', async () => {
      const signed = await f.signIn('auth-1@example.test', 'tv-rot');
      const tokensUrl = `${BASE}/auth/devices/smarttv/tv-rot/tokens?tier=Staging&scope=catalog&sessionUserProfile=7`;
      const first = await f.app.inject({
        method: 'GET',
        url: tokensUrl,
        headers: { authorization: `Bearer ${signed.refreshToken}` },
      });
      assert.equal(first.statusCode, 200);
      const tokens = first.json();
      assert.notEqual(tokens.refreshToken, signed.refreshToken);
      assert.equal(tokens.tier, 'Staging');
      assert.equal(tokens.scope, 'catalog');
      assert.equal(tokens.sessionUserProfile, 7);
      const claims = decodeJwt(tokens.accessToken);
      assert.equal(claims.tier, 'Staging');
      assert.equal(claims.scope, 'catalog');
      assert.equal(claims.prf, 7);
      assert.equal(claims.acc, 'auth-1');
      assert.equal(claims.sid, signed.sessionId);
      assert.equal(
        (await f.call('GET', '/accounts/auth-1/devices', { token: tokens.accessToken })).statusCode,
        200,
      );

      const reused = await f.app.inject({
        method: 'GET',
        url: tokensUrl,
        headers: { authorization: `Bearer ${signed.refreshToken}` },
      });
      assert.equal(reused.statusCode, 401);
      assert.deepEqual(errorTypes(reused), ['REFRESH_TOKEN_INVALID']);

      const info = await f.app.inject({
        method: 'GET',
        url: `${BASE}/auth/devices/smarttv/tv-rot/userInfo`,
        headers: { authorization: `Bearer ${tokens.refreshToken}` },
      });
      assert.equal(info.statusCode, 200);
      assert.equal(info.json().user.email, 'auth-1@example.test');
      assert.equal(info.json().tokens.tier, 'Staging', 'the session keeps its tier');
      assert.notEqual(info.json().tokens.refreshToken, tokens.refreshToken);
    });

    it('401 without a refresh token, with an access token instead, or for another device', async () => {
      const signed = await f.signIn('auth-1@example.test', 'tv-x');
      const url = `${BASE}/auth/devices/smarttv/tv-x/tokens`;
      const none = await f.app.inject({ method: 'GET', url });
      assert.equal(none.statusCode, 401);
      assert.deepEqual(errorTypes(none), ['CREDENTIALS_MISSING']);
      const access = await f.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${signed.accessToken}` },
      });
      assert.equal(access.statusCode, 401);
      const otherDevice = await f.app.inject({
        method: 'GET',
        url: `${BASE}/auth/devices/smarttv/tv-1/tokens`,
        headers: { authorization: `Bearer ${signed.refreshToken}` },
      });
      assert.equal(otherDevice.statusCode, 401);
    });

    it('400 for a bad tier, a scope over 24 characters, a non-integer profile, a deviceId over 48', async () => {
      const signed = await f.signIn('auth-1@example.test', 'tv-v');
      const headers = { authorization: `Bearer ${signed.refreshToken}` };
      for (const query of [
        'tier=Prod',
        `scope=${'s'.repeat(25)}`,
        'sessionUserProfile=x',
        'sessionUserProfile=3000000000',
      ]) {
        const response = await f.app.inject({
          method: 'GET',
          url: `${BASE}/auth/devices/smarttv/tv-v/tokens?${query}`,
          headers,
        });
        assert.equal(response.statusCode, 400, query);
        assert.ok(errorTypes(response).length > 0, query);
        assert.ok(
          errorTypes(response).every((type) => type === 'VALIDATION_ERROR'),
          query,
        );
      }
      const longId = await f.app.inject({
        method: 'GET',
        url: `${BASE}/auth/devices/smarttv/${'d'.repeat(49)}/tokens`,
        headers,
      });
      assert.equal(longId.statusCode, 400);
    });
  });

  describe('access tokens', () => {
    it('verify against /.well-known/jwks.json with a standard client (jose)', async () => {
      const signed = await f.signIn('auth-1@example.test', 'tv-jwks');
      const jwks = await f.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      assert.equal(jwks.statusCode, 200);
      const set = jwks.json();
      for (const key of set.keys) assert.equal(key.d, undefined, 'never a private part');
      const { payload, protectedHeader } = await jwtVerify(signed.accessToken, createLocalJWKSet(set), {
        issuer: 'sintonia-client-api',
        audience: 'sintonia-client-api',
      });
      assert.equal(protectedHeader.alg, 'ES256');
      assert.equal(payload.did, 'tv-jwks');
      assert.ok(Number(payload.exp) - Number(payload.iat) === 900);
    });

    it('a tampered, unsigned or foreign token is 401 TOKEN_INVALID', async () => {
      const signed = await f.signIn('auth-1@example.test', 'tv-tamper');
      const [header, payload, signature] = signed.accessToken.split('.');
      const claims = JSON.parse(Buffer.from(String(payload), 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, acc: 'auth-2' })).toString('base64url');
      const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      // The genuine token first, so its signature check is remembered: a forged payload carrying the same
      // signature must still be refused.
      const genuine = await f.call('GET', '/accounts/auth-1/devices', { token: signed.accessToken });
      assert.equal(genuine.statusCode, 200);
      for (const token of [
        `${header}.${forged}.${signature}`,
        `${none}.${payload}.`,
        'not-a-jwt',
        signed.refreshToken,
      ]) {
        const response = await f.call('GET', '/accounts/auth-1/devices', { token });
        assert.equal(response.statusCode, 401, token.slice(0, 20));
        assert.deepEqual(errorTypes(response), ['TOKEN_INVALID']);
      }
    });

    it('expire after ACCESS_TOKEN_TTL', async () => {
      const short = await accountsFixture({ ACCESS_TOKEN_TTL: '1' });
      try {
        await short.account('ttl-1');
        const signed = await short.signIn('ttl-1@example.test', 'tv-1');
        const { exp, iat } = decodeJwt(signed.accessToken);
        assert.equal(Number(exp) - Number(iat), 1);
        // Wait until the expiry has passed by the clock (no assumption on how long the sign-in took).
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, Number(exp) * 1000 + 1000 - Date.now())),
        );
        assert.equal(
          (await short.call('GET', '/accounts/ttl-1/devices', { token: signed.accessToken })).statusCode,
          401,
        );
      } finally {
        await short.close();
      }
    });
  });
});
