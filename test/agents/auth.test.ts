import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type TestCore } from '../helpers/harness.ts';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.ts';

const routes = [
  { method: 'GET', url: '/agents' },
  { method: 'GET', url: '/agents/assistant' },
  { method: 'POST', url: '/agents/assistant/invoke' },
  { method: 'POST', url: '/agents/assistant/stream' },
] as const;

describe('agents server authentication', () => {
  let jwks: JwksServer;
  let app: App;
  let core: TestCore;
  let close: () => Promise<void>;
  const keys: Record<string, string> = {};

  before(async () => {
    jwks = await startJwksServer();
    const test = await createTestApp('agents', {
      PUBLIC_BASE_URL: jwks.baseUrl,
      ASSISTANT_JWKS_URL: jwks.jwksUrl,
    });
    app = test.app;
    core = test.core;
    close = test.close;
    for (const keyClass of ['runtime', 'backoffice', 'gateway', 'client'] as const) {
      keys[keyClass] = (await core.apiKeys.create(keyClass, `auth-${keyClass}`)).key;
    }
    const revoked = await core.apiKeys.create('runtime', 'auth-revoked');
    await core.apiKeys.revoke(revoked.id);
    keys.revoked = revoked.key;
  });
  after(async () => {
    await close();
    await jwks.close();
  });

  const call = (route: (typeof routes)[number], headers: Record<string, string>) =>
    app.inject({
      method: route.method,
      url: route.url,
      headers,
      payload: route.method === 'POST' ? { input: 'hello' } : undefined,
    });

  function assertFamilyError(
    response: Awaited<ReturnType<typeof call>>,
    status: number,
    code: string,
    type: string,
  ) {
    assert.equal(response.statusCode, status, response.body);
    assert.equal(response.json().code, code);
    assert.equal(response.json().errors[0].type, type);
  }

  const invoke = routes[2];

  const refused: Array<[string, () => Promise<string>]> = [
    ['another audience', () => jwks.sign({}, { audience: 'someone-else' })],
    ['another issuer', () => jwks.sign({}, { issuer: 'http://evil.example/openid/issuer' })],
    ['expired', () => jwks.sign({}, { ttl: -120 })],
    ['no exp', () => jwks.sign({}, { ttl: null })],
    ['signed by a key the JWKS does not publish', () => jwks.signWithStranger({})],
    [
      'HS256 with a guessable secret',
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'HS256', kid: 'kid-ES256' })
          .setIssuer(jwks.issuer)
          .setAudience('sintonia-agents')
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('secret-secret-secret-secret-secret!')),
    ],
    ['garbage', async () => 'aaa.bbb.ccc'],
  ];

  describe('happy', () => {
    it('accepts RS256 as well as ES256', async () => {
      const token = await jwks.sign({ sub: 'c' }, { alg: 'RS256' });
      assert.equal((await call(invoke, { authorization: `Bearer ${token}` })).statusCode, 200);
    });
  });

  describe('security', () => {
    for (const route of routes) {
      describe(`${route.method} ${route.url}`, () => {
        it('no credentials: 401 CREDENTIALS_MISSING challenging with both schemes it takes', async () => {
          const response = await call(route, {});
          assertFamilyError(response, 401, 'UNAUTHORIZED', 'CREDENTIALS_MISSING');
          assert.equal(
            response.headers['www-authenticate'],
            'apiKey realm="sintonia-agents", Bearer realm="sintonia-agents"',
          );
        });
        for (const keyClass of ['runtime', 'backoffice']) {
          it(`a ${keyClass} key passes`, async () => {
            assert.equal((await call(route, { 'x-api-key': keys[keyClass] ?? '' })).statusCode, 200);
          });
        }
        for (const keyClass of ['gateway', 'client']) {
          it(`a ${keyClass} key: 403 ACCESS_DENIED`, async () => {
            assertFamilyError(
              await call(route, { 'x-api-key': keys[keyClass] ?? '' }),
              403,
              'FORBIDDEN',
              'ACCESS_DENIED',
            );
          });
        }
        it('an unknown or revoked key: 401 API_KEY_INVALID', async () => {
          assertFamilyError(
            await call(route, { 'x-api-key': 'snt_runtime_nope' }),
            401,
            'UNAUTHORIZED',
            'API_KEY_INVALID',
          );
          assertFamilyError(
            await call(route, { 'x-api-key': keys.revoked ?? '' }),
            401,
            'UNAUTHORIZED',
            'API_KEY_INVALID',
          );
        });
        it('an assistant JWT passes', async () => {
          const token = await jwks.sign({ sub: 'conversation-1' });
          assert.equal((await call(route, { authorization: `Bearer ${token}` })).statusCode, 200);
        });
      });
    }

    for (const [name, token] of refused) {
      it(`a token ${name}: 401 TOKEN_INVALID`, async () => {
        const response = await call(invoke, { authorization: `Bearer ${await token()}` });
        assertFamilyError(response, 401, 'UNAUTHORIZED', 'TOKEN_INVALID');
        assert.equal(
          response.headers['www-authenticate'],
          'Bearer realm="sintonia-agents", error="invalid_token"',
        );
      });
    }

    it('an Authorization header that is not Bearer: 401 TOKEN_INVALID', async () => {
      assertFamilyError(
        await call(invoke, { authorization: 'Basic dXNlcjpwYXNz' }),
        401,
        'UNAUTHORIZED',
        'TOKEN_INVALID',
      );
    });

    it('a bad API key is refused even with a good token beside it', async () => {
      const token = await jwks.sign({});
      const response = await call(invoke, {
        'x-api-key': keys.gateway ?? '',
        authorization: `Bearer ${token}`,
      });
      assertFamilyError(response, 403, 'FORBIDDEN', 'ACCESS_DENIED');
    });
  });
});

describe('agents server authentication when the key set cannot be fetched', () => {
  describe('errors', () => {
    it('answers 502 SUBSYSTEM_ERROR: the caller’s token may be fine', async () => {
      const jwks = await startJwksServer();
      const token = await jwks.sign({});
      const { baseUrl } = jwks;
      await jwks.close();
      const test = await createTestApp('agents', {
        PUBLIC_BASE_URL: baseUrl,
        ASSISTANT_JWKS_URL: `${baseUrl}/openid/jwk`,
      });
      try {
        const response = await test.app.inject({
          method: 'GET',
          url: '/agents',
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(response.statusCode, 502);
        assert.equal(response.json().errors[0].type, 'SUBSYSTEM_ERROR');
      } finally {
        await test.close();
      }
    });
  });
});
