import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/core/http/service-app.ts';
import { NUL_MESSAGE } from '../../src/core/http/validation.ts';
import {
  type AccountsFixture,
  accountsFixture,
  BASE,
  errorTypes,
  type SignedIn,
} from '../client-api/accounts-fixtures.ts';
import { createTestApp } from '../helpers/harness.ts';

/** The family's answer to a request part that fails validation, naming the field. */
function assertRefused(response: LightMyRequestResponse, field: string, message = NUL_MESSAGE) {
  assert.equal(response.statusCode, 400, response.body);
  const body = response.json();
  assert.equal(body.code, 'BAD_REQUEST');
  assert.deepEqual(body.errors, [{ type: 'VALIDATION_ERROR', message: `${field} ${message}` }]);
}

describe('issue 40 repros: client-api refuses what it cannot hold with 400, never 5xx', () => {
  let fx: AccountsFixture;
  let user: { accountNumber: string; email: string; userHash: string };
  let tv: SignedIn;

  before(async () => {
    fx = await accountsFixture();
    user = await fx.account('acc-repro');
    tv = await fx.signIn(user.email, 'tv-1');
  });
  after(() => fx.close());

  const save = (at: string) =>
    fx.call('POST', `/smarttv/tv-1/users/${user.userHash}/bookmarks/7/30?at=${encodeURIComponent(at)}`, {
      token: tv.accessToken,
    });

  it('a leap second (or any time Date cannot hold) as the bookmark save’s `at` is 400 VALIDATION_ERROR', async () => {
    for (const at of [
      '2026-12-31T23:59:60Z',
      '2026-13-01T00:00:00Z',
      '2026-02-29T10:00:00Z',
      '2026-01-01T24:00:00Z',
    ]) {
      const response = await save(at);
      assertRefused(response, 'querystring/at', 'must match format "date-time"');
    }
    const leapDay = await save('2024-02-29T10:00:00+01:00');
    assert.equal(leapDay.statusCode, 200, leapDay.body);
    assert.equal(leapDay.json().at, '2024-02-29T09:00:00.000Z');
  });

  it('NUL in a path parameter is 400 VALIDATION_ERROR naming it', async () => {
    assertRefused(
      await fx.call('GET', '/accounts/a%00b/userHash', { key: fx.operatorKey }),
      'params/accountNumber',
    );
    assertRefused(
      await fx.call('GET', `/smarttv/users/${user.userHash}/bookmarks/7?version=v%001`, {
        token: tv.accessToken,
      }),
      'querystring/version',
    );
  });

  it('NUL in a sign-in field is 400 VALIDATION_ERROR naming it', async () => {
    const response = await fx.call(
      'POST',
      '/auth/smarttv/users/authenticate',
      {},
      {
        username: `${user.email}\u0000`,
        password: 'pw',
        deviceId: 'tv-2',
      },
    );
    assertRefused(response, 'body/username');
  });

  it('NUL in the bare device name (a route that words its own body refusals) is 400 VALIDATION_ERROR', async () => {
    const response = await fx.call(
      'PUT',
      `/accounts/${user.accountNumber}/devices/tv-1/name`,
      { key: fx.operatorKey },
      'TV\u0000',
    );
    assertRefused(response, 'body');
  });

  it('NUL in the RFC 8628 device-authorization form is 400 invalid_request, as its other bad input', async () => {
    const response = await fx.app.inject({
      method: 'POST',
      url: `${BASE}/oauth/device_authorization`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'client_id=smarttv&device_id=tv%00x',
    });
    assert.equal(response.statusCode, 400, response.body);
    const body = response.json();
    assert.equal(body.error, 'invalid_request');
    assert.equal(body.error_description, `body/device_id ${NUL_MESSAGE}`);
    assert.deepEqual(errorTypes(response), ['VALIDATION_ERROR']);
  });
});

describe('issue 40 repros: assistant-auth refuses NUL at its boundary', () => {
  let app: App;
  let close: () => Promise<void>;
  before(async () => {
    ({ app, close } = await createTestApp('assistant-auth', { CHAT_PAGE: 'on' }));
  });
  after(() => close());

  it('NUL in the chat page’s sign-in is 400 VALIDATION_ERROR, not a 502 from client-api', async () => {
    for (const [field, payload] of [
      ['username', { username: 'someone@example.test\u0000', password: 'pw' }],
      ['password', { username: 'someone@example.test', password: 'p\u0000w' }],
    ] as const) {
      const response = await app.inject({ method: 'POST', url: '/chat/sign-in', payload });
      assertRefused(response, `body/${field}`);
    }
  });
});
