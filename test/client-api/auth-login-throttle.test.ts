import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/core/config.ts';
import { openCore } from '../../src/core/core.ts';
import { type App, buildServiceApp } from '../../src/core/http/service-app.ts';
import { services } from '../../src/family.ts';
import { type AccountsFixture, accountsFixture, BASE, errorTypes, PASSWORD } from './accounts-fixtures.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const signIn = (app: App, username: string, password: string, from = '127.0.0.1', headers = {}) =>
  app.inject({
    method: 'POST',
    url: `${BASE}/auth/smarttv/users/authenticate?auth-only=true`,
    payload: { username, password, deviceId: 'tv-1' },
    remoteAddress: from,
    headers,
  });

/** The seconds of Retry-After: a whole number within the window. */
function retryAfter(response: { headers: Record<string, unknown> }): number {
  const seconds = Number(response.headers['retry-after']);
  assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 900, `retry-after ${seconds}`);
  return seconds;
}

describe('client-api sign-in throttle: failed sign-ins per user name and per client address', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture();
    for (const account of ['lock-1', 'lock-2', 'lock-3', 'lock-4', 'lock-5', 'lock-6'])
      await f.account(account);
  });
  after(() => f.close());

  it('40 wrong passwords for one user: 401 five times, then 429 with Retry-After; the right one is refused too', async () => {
    const statuses: number[] = [];
    let last = await signIn(f.app, 'lock-1@example.test', 'wrong', '10.0.0.1');
    statuses.push(last.statusCode);
    // A new address every few tries, so only the per-user limit is reached.
    for (let attempt = 1; attempt < 40; attempt++) {
      last = await signIn(f.app, 'lock-1@example.test', 'wrong', `10.0.1.${attempt}`);
      statuses.push(last.statusCode);
    }
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.ok(statuses.slice(5).every((status) => status === 429));
    assert.deepEqual(errorTypes(last), ['LOGIN_THROTTLED']);
    retryAfter(last);
    const right = await signIn(f.app, 'LOCK-1@example.test ', PASSWORD, '10.0.2.1');
    assert.equal(right.statusCode, 429);
    assert.deepEqual(errorTypes(right), ['LOGIN_THROTTLED']);
    retryAfter(right);
  });

  it('a success starts the user count over', async () => {
    for (let attempt = 0; attempt < 4; attempt++) {
      assert.equal((await signIn(f.app, 'lock-2@example.test', 'wrong', '10.1.0.1')).statusCode, 401);
    }
    assert.equal((await signIn(f.app, 'lock-2@example.test', PASSWORD, '10.1.0.1')).statusCode, 200);
    for (let attempt = 0; attempt < 5; attempt++) {
      assert.equal((await signIn(f.app, 'lock-2@example.test', 'wrong', '10.1.0.1')).statusCode, 401);
    }
    assert.equal((await signIn(f.app, 'lock-2@example.test', 'wrong', '10.1.0.1')).statusCode, 429);
  });

  it('one address is limited across user names (20 by default)', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await signIn(f.app, `nobody-${attempt}@example.test`, 'wrong', '10.2.0.1');
      assert.equal(response.statusCode, 401);
    }
    const next = await signIn(f.app, 'lock-3@example.test', PASSWORD, '10.2.0.1');
    assert.equal(next.statusCode, 429);
    retryAfter(next);
    // Another address is not concerned.
    assert.equal((await signIn(f.app, 'lock-3@example.test', PASSWORD, '10.2.0.2')).statusCode, 200);
  });

  it('HTTP Basic on GET and HEAD is counted and throttled alike', async () => {
    const check = (method: 'GET' | 'HEAD', password: string, from: string) =>
      f.app.inject({
        method,
        url: `${BASE}/auth/smarttv/users/authenticate`,
        headers: { authorization: basic('lock-4@example.test', password) },
        remoteAddress: from,
      });
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await check(attempt % 2 === 0 ? 'GET' : 'HEAD', 'wrong', `10.3.0.${attempt}`);
      assert.equal(response.statusCode, 401);
    }
    const get = await check('GET', PASSWORD, '10.3.1.1');
    assert.equal(get.statusCode, 429);
    assert.deepEqual(errorTypes(get), ['LOGIN_THROTTLED']);
    retryAfter(get);
    const head = await check('HEAD', PASSWORD, '10.3.1.2');
    assert.equal(head.statusCode, 429);
    retryAfter(head);
    // The POST sign-in shares the user's count.
    assert.equal((await signIn(f.app, 'lock-4@example.test', PASSWORD, '10.3.1.3')).statusCode, 429);
  });

  it('X-Forwarded-For is ignored without TRUSTED_PROXIES: the socket peer is counted', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await signIn(f.app, `x-${attempt}@example.test`, 'wrong', '10.4.0.1', {
        'x-forwarded-for': `192.0.2.${attempt}`,
      });
      assert.equal(response.statusCode, 401);
    }
    const next = await signIn(f.app, 'lock-5@example.test', PASSWORD, '10.4.0.1', {
      'x-forwarded-for': '192.0.2.200',
    });
    assert.equal(next.statusCode, 429);
  });

  it('the limit is kept in the store: a second process on the same store refuses too', async () => {
    const other = await openCore(loadConfig(f.core.env as NodeJS.ProcessEnv));
    const app = await buildServiceApp(other, services['client-api']);
    await app.ready();
    try {
      // Failures alternate between the two processes; the sixth attempt is refused by either.
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await signIn(
          attempt % 2 === 0 ? f.app : app,
          'lock-6@example.test',
          'wrong',
          `10.5.0.${attempt}`,
        );
        assert.equal(response.statusCode, 401);
      }
      assert.equal((await signIn(app, 'lock-6@example.test', PASSWORD, '10.5.1.1')).statusCode, 429);
      assert.equal((await signIn(f.app, 'lock-6@example.test', PASSWORD, '10.5.1.2')).statusCode, 429);
      // Twelve at once, half on each process: no more than five are let through to the password check.
      const racing = await Promise.all(
        Array.from({ length: 12 }, (_, attempt) =>
          signIn(attempt % 2 === 0 ? f.app : app, 'lock-7@example.test', 'wrong', `10.6.0.${attempt}`),
        ),
      );
      const statuses = racing.map((response) => response.statusCode).sort();
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    } finally {
      await app.close();
      await other.close();
    }
  });
});

describe('client-api sign-in throttle behind a trusted proxy', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({
      TRUSTED_PROXIES: '10.9.0.0/16',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '3',
      REGISTRATION_RATE_LIMIT: '1',
      MAIL_POLL_INTERVAL_MS: '60000',
    });
    await f.account('proxied');
  });
  after(() => f.close());

  it("believes a trusted peer's X-Forwarded-For: each client has its own count", async () => {
    const via = (client: string, password: string) =>
      signIn(f.app, 'proxied@example.test', password, '10.9.0.1', { 'x-forwarded-for': client });
    for (let attempt = 0; attempt < 3; attempt++)
      assert.equal((await via('198.51.100.1', 'wrong')).statusCode, 401);
    assert.equal((await via('198.51.100.1', 'wrong')).statusCode, 429);
    // Another client behind the same proxy is still let in.
    assert.equal((await via('198.51.100.2', PASSWORD)).statusCode, 200);
  });

  it('the registration limit counts the forwarded client address too', async () => {
    const register = (client: string, email: string) =>
      f.app.inject({
        method: 'POST',
        url: `${BASE}/smarttv/registration/request`,
        payload: { email },
        remoteAddress: '10.9.0.1',
        headers: { 'x-forwarded-for': client },
      });
    assert.equal((await register('198.51.100.50', 'first@example.test')).statusCode, 200);
    assert.equal((await register('198.51.100.50', 'second@example.test')).statusCode, 429);
    assert.equal((await register('198.51.100.51', 'third@example.test')).statusCode, 200);
  });

  it('an untrusted peer cannot pick its address with X-Forwarded-For', async () => {
    const from = (client: string) =>
      signIn(f.app, `someone-${client}@example.test`, 'wrong', '203.0.113.9', { 'x-forwarded-for': client });
    for (let attempt = 0; attempt < 3; attempt++)
      assert.equal((await from(`198.51.100.${10 + attempt}`)).statusCode, 401);
    assert.equal((await from('198.51.100.99')).statusCode, 429);
  });
});

describe('TRUSTED_PROXIES', () => {
  it('takes addresses, CIDRs and the named ranges; anything else stops the start naming the variable', () => {
    assert.equal(
      loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, ::1,loopback' }).TRUSTED_PROXIES,
      '10.0.0.0/8, ::1,loopback',
    );
    assert.equal(loadConfig({}).TRUSTED_PROXIES, '');
    assert.throws(
      () => loadConfig({ TRUSTED_PROXIES: 'http://proxy' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /TRUSTED_PROXIES=/);
        return true;
      },
    );
  });
});
