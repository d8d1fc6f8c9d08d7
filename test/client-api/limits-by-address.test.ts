import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientAddressGroup } from '../../src/core/limits/client-address.ts';
import { injectedMetrics, sample } from '../helpers/metrics-text.ts';
import { type AccountsFixture, accountsFixture, BASE, errorTypes } from './accounts-fixtures.ts';

describe('a client address as per-address limits count it', () => {
  it('is an IPv4 address as it is, an IPv6 address by its /64, a mapped IPv4 address as IPv4', () => {
    assert.equal(clientAddressGroup('198.51.100.7'), '198.51.100.7');
    assert.equal(clientAddressGroup('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(clientAddressGroup('2001:0DB8:0001:0002:ffff:0:0:9'), '2001:db8:1:2::/64');
    assert.equal(clientAddressGroup('2001:db8:1:3::1'), '2001:db8:1:3::/64');
    assert.equal(clientAddressGroup('::1'), '0:0:0:0::/64');
    assert.equal(clientAddressGroup('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(clientAddressGroup('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(clientAddressGroup('not an address'), 'not an address');
  });
});

describe('client-api limits per client address count IPv6 by /64, and registration mail has a bound for all', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({
      LOGIN_MAX_FAILURES_PER_ADDRESS: '2',
      REGISTRATION_RATE_LIMIT: '1',
      REGISTRATION_MAIL_PER_HOUR: '3',
      MAIL_POLL_INTERVAL_MS: '60000',
    });
    await f.account('six-four');
  });
  after(() => f.close());

  const refusals = async (limit: string) =>
    sample(await injectedMetrics(f.app, f.core), 'sintonia_limit_refusals_total', { limit }) ?? 0;
  const signIn = (username: string, from: string) =>
    f.app.inject({
      method: 'POST',
      url: `${BASE}/auth/smarttv/users/authenticate?auth-only=true`,
      payload: { username, password: 'wrong', deviceId: 'tv-1' },
      remoteAddress: from,
    });
  const register = (email: string, from: string) =>
    f.app.inject({
      method: 'POST',
      url: `${BASE}/smarttv/registration/request`,
      payload: { email },
      remoteAddress: from,
    });

  it('sign-in failures from addresses of one /64 share LOGIN_MAX_FAILURES_PER_ADDRESS; another /64 has its own', async () => {
    assert.equal((await signIn('a@example.test', '2001:db8:5:6::1')).statusCode, 401);
    assert.equal((await signIn('b@example.test', '2001:db8:5:6::2')).statusCode, 401);
    const refused = await signIn('c@example.test', '2001:db8:5:6:abcd::3');
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(errorTypes(refused), ['LOGIN_THROTTLED']);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal((await signIn('d@example.test', '2001:db8:5:7::1')).statusCode, 401);
  });

  it('registration requests from addresses of one /64 share REGISTRATION_RATE_LIMIT', async () => {
    assert.equal((await register('one@example.test', '2001:db8:9:1::1')).statusCode, 200);
    const refused = await register('two@example.test', '2001:db8:9:1::2');
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(errorTypes(refused), ['REGISTRATION_RATE_LIMITED']);
    assert.equal(await refusals('registration_per_address'), 1);
  });

  it('queues REGISTRATION_MAIL_PER_HOUR e-mails for all clients together, then 429 with Retry-After', async () => {
    // One was queued by the test before: two more clients fill the hour.
    assert.equal((await register('three@example.test', '198.51.100.21')).statusCode, 200);
    assert.equal((await register('four@example.test', '198.51.100.22')).statusCode, 200);
    const refused = await register('five@example.test', '198.51.100.23');
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(errorTypes(refused), ['REGISTRATION_RATE_LIMITED']);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
    assert.equal(await refusals('registration_total'), 1);
  });
});
