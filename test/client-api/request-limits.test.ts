import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, errorTypes } from './accounts-fixtures.ts';

describe('client-api per-principal request limits', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({
      CLIENT_API_DEVICE_REQUEST_LIMIT: '3',
      BACKOFFICE_KEY_REQUEST_LIMIT: '2',
      // A day-long window: the test cannot straddle two windows unless it runs across midnight UTC.
      REQUEST_LIMIT_WINDOW: '86400',
    });
    await f.account('limited-1');
    await f.account('limited-2');
  });
  after(() => f.close());

  it('a device past its limit gets 429 RATE_LIMITED with Retry-After; another device is not concerned', async () => {
    const one = await f.signIn('limited-1@example.test', 'tv-1');
    const path = '/accounts/limited-1/devices/tv-1';
    for (let request = 0; request < 3; request++) {
      assert.equal((await f.call('GET', path, { token: one.accessToken })).statusCode, 200);
    }
    const refused = await f.call('GET', path, { token: one.accessToken });
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(errorTypes(refused), ['RATE_LIMITED']);
    const seconds = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 86400);
    // A new session of the same device shares the device's count.
    const again = await f.signIn('limited-1@example.test', 'tv-1');
    assert.equal((await f.call('GET', path, { token: again.accessToken })).statusCode, 429);
    const two = await f.signIn('limited-2@example.test', 'tv-1');
    assert.equal(
      (await f.call('GET', '/accounts/limited-2/devices/tv-1', { token: two.accessToken })).statusCode,
      200,
    );
  });

  it('an operator key past its limit gets 429 RATE_LIMITED', async () => {
    const path = '/accounts/limited-2/devices/tv-1';
    for (let request = 0; request < 2; request++) {
      assert.equal((await f.call('GET', path, { key: f.operatorKey })).statusCode, 200);
    }
    const refused = await f.call('GET', path, { key: f.operatorKey });
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(errorTypes(refused), ['RATE_LIMITED']);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
  });
});
