import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { loadConfig } from '../../src/core/config.ts';
import { openCore } from '../../src/core/core.ts';
import { buildServiceApp } from '../../src/core/http/service-app.ts';
import { services } from '../../src/family.ts';
import { type AccountsFixture, accountsFixture, BASE, errorTypes } from './accounts-fixtures.ts';

describe('client-api device tokens', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture();
    await f.account('auth-1');
  });
  after(() => f.close());

  describe('…/tokens and …/userInfo', () => {
    describe('happy', () => {
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

        const info = await f.app.inject({
          method: 'GET',
          url: `${BASE}/auth/devices/smarttv/tv-rot/userInfo`,
          headers: { authorization: `Bearer ${tokens.refreshToken}` },
        });
        assert.equal(info.statusCode, 200);
        assert.equal(info.json().user.email, 'auth-1@example.test');
        assert.equal(info.json().tokens.tier, 'Staging', 'the session keeps its tier');
        assert.notEqual(info.json().tokens.refreshToken, tokens.refreshToken);

        // Replayed after its rotation (which also ends the session: see the next test).
        const reused = await f.app.inject({
          method: 'GET',
          url: tokensUrl,
          headers: { authorization: `Bearer ${signed.refreshToken}` },
        });
        assert.equal(reused.statusCode, 401);
        assert.deepEqual(errorTypes(reused), ['REFRESH_TOKEN_INVALID']);
      });
    });

    describe('errors', () => {
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

    describe('security', () => {
      it('a replayed rotated refresh token closes its session: the newer refresh token and the access tokens are refused at once', async (t) => {
        const signed = await f.signIn('auth-1@example.test', 'tv-replay');
        const other = await f.signIn('auth-1@example.test', 'tv-bystander');
        const refresh = (token: string) =>
          f.app.inject({
            method: 'GET',
            url: `${BASE}/auth/devices/smarttv/tv-replay/tokens`,
            headers: { authorization: `Bearer ${token}` },
          });
        const devices = (token: string) => f.call('GET', '/accounts/auth-1/devices', { token });
        // A second process on the same store, which has seen the session open, must hear of the close too.
        const second = await openCore(loadConfig(f.core.env as NodeJS.ProcessEnv));
        const secondApp = await buildServiceApp(second, services['client-api']);
        t.after(async () => {
          await secondApp.close();
          await second.close();
        });
        const devicesOnSecond = (token: string) =>
          secondApp.inject({
            method: 'GET',
            url: `${BASE}/accounts/auth-1/devices`,
            headers: { authorization: `Bearer ${token}` },
          });

        const rotated = await refresh(signed.refreshToken);
        assert.equal(rotated.statusCode, 200);
        const { accessToken, refreshToken } = rotated.json();
        assert.equal((await devices(accessToken)).statusCode, 200);
        assert.equal((await devicesOnSecond(accessToken)).statusCode, 200);

        const replayed = await refresh(signed.refreshToken);
        assert.equal(replayed.statusCode, 401);
        assert.deepEqual(errorTypes(replayed), ['REFRESH_TOKEN_INVALID']);

        const newer = await refresh(refreshToken);
        assert.equal(newer.statusCode, 401, 'the refresh token issued after the replayed one');
        assert.deepEqual(errorTypes(newer), ['REFRESH_TOKEN_INVALID']);
        for (const token of [accessToken, signed.accessToken]) {
          const refused = await devices(token);
          assert.equal(refused.statusCode, 401);
          assert.deepEqual(errorTypes(refused), ['TOKEN_INVALID']);
        }
        assert.equal(
          (await devicesOnSecond(accessToken)).statusCode,
          401,
          'the second process refuses it too',
        );
        assert.equal((await devices(other.accessToken)).statusCode, 200, 'another session is untouched');
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
    });
  });

  describe('access tokens', () => {
    describe('happy', () => {
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
    });

    describe('security', () => {
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

      it('expire after ACCESS_TOKEN_TTL, also one this process has already verified', async () => {
        // 3 s: at least 2 s of validity whatever the fraction of the second it was issued in.
        const short = await accountsFixture({ ACCESS_TOKEN_TTL: '3' });
        try {
          await short.account('ttl-1');
          const signed = await short.signIn('ttl-1@example.test', 'tv-1');
          const { exp, iat } = decodeJwt(signed.accessToken);
          assert.equal(Number(exp) - Number(iat), 3);
          // Used once while valid: the process remembers the verified token, and must still see it expire.
          const used = await short.call('GET', '/accounts/ttl-1/devices', { token: signed.accessToken });
          assert.equal(used.statusCode, 200);
          // Wait until the expiry has passed by the clock (no assumption on how long the sign-in took).
          await new Promise((resolve) =>
            setTimeout(resolve, Math.max(0, Number(exp) * 1000 + 1000 - Date.now())),
          );
          const expired = await short.call('GET', '/accounts/ttl-1/devices', { token: signed.accessToken });
          assert.equal(expired.statusCode, 401);
          assert.deepEqual(errorTypes(expired), ['TOKEN_INVALID']);
        } finally {
          await short.close();
        }
      });
    });
  });
});
