import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';

/**
 * Changing an account's devices: the rename (PUT …/devices/{deviceId}/name, a bare string body), enabling and
 * disabling (PUT …/enabled/{enabled}), deleting one and every one of a class (DELETE). Reading them is in
 * devices-read.test.ts; access by credentials and closed sessions are checked over every operation.
 */
describe('client-api device changes', () => {
  let f: AccountsFixture;
  let tv: SignedIn;
  before(async () => {
    // The default cool-down (a day) applies here; the second suite runs with none.
    f = await accountsFixture({ MAX_DEVICES_PER_ACCOUNT: '3', PLAYING_WINDOW: '60' });
    await f.account('dev-1');
    tv = await f.signIn('dev-1@example.test', 'tv-1', { deviceName: 'Living room' });
  });
  after(() => f.close());

  describe('happy', () => {
    it('renames with a bare string body, trimmed; 64 characters is the limit', async () => {
      const renamed = await f.call(
        'PUT',
        '/accounts/dev-1/devices/tv-1/name',
        { token: tv.accessToken },
        '  Kitchen ',
      );
      assert.equal(renamed.statusCode, 200);
      assert.deepEqual(renamed.json(), { mediaPlayerId: 'tv-1', name: 'Kitchen' });
      const longest = 'n'.repeat(64);
      const atLimit = await f.call(
        'PUT',
        '/accounts/dev-1/devices/tv-1/name',
        { token: tv.accessToken },
        longest,
      );
      assert.equal(atLimit.statusCode, 200);
      const read = await f.call('GET', '/accounts/dev-1/devices/tv-1/name', { token: tv.accessToken });
      assert.equal(read.json().name, longest);
    });

    it('disables and enables a device: disabling ends its sessions at once', async () => {
      const phone = await f.signIn('dev-1@example.test', 'phone-1', { deviceClass: 'android' });
      const off = await f.call('PUT', '/accounts/dev-1/devices/phone-1/enabled/false', {
        token: tv.accessToken,
      });
      assert.equal(off.statusCode, 204);
      assert.equal(off.body, '');
      const refused = await f.call('GET', '/accounts/dev-1/devices', { token: phone.accessToken });
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(errorTypes(refused), ['TOKEN_INVALID']);
      const read = await f.call('GET', '/accounts/dev-1/devices/phone-1', { token: tv.accessToken });
      assert.equal(read.json().enabled, false);
      const on = await f.call('PUT', '/accounts/dev-1/devices/phone-1/enabled/true', {
        token: tv.accessToken,
      });
      assert.equal(on.statusCode, 204);
      assert.equal(
        (await f.call('GET', '/accounts/dev-1/devices/phone-1', { token: tv.accessToken })).json().enabled,
        true,
      );
    });
  });

  describe('errors', () => {
    it('400 DEVICE_NAME_TOO_LONG over 64 characters and DEVICE_NAME_REQUIRED for empty or blank', async () => {
      const long = await f.call(
        'PUT',
        '/accounts/dev-1/devices/tv-1/name',
        { token: tv.accessToken },
        'x'.repeat(65),
      );
      assert.equal(long.statusCode, 400);
      assert.equal(long.json().code, 'BAD_REQUEST');
      assert.deepEqual(errorTypes(long), ['DEVICE_NAME_TOO_LONG']);
      for (const name of ['', '   ']) {
        const empty = await f.call(
          'PUT',
          '/accounts/dev-1/devices/tv-1/name',
          { token: tv.accessToken },
          name,
        );
        assert.equal(empty.statusCode, 400);
        assert.deepEqual(errorTypes(empty), ['DEVICE_NAME_REQUIRED']);
      }
      const absent = await f.app.inject({
        method: 'PUT',
        url: '/api/v1/accounts/dev-1/devices/tv-1/name',
        headers: { authorization: `Bearer ${tv.accessToken}` },
      });
      assert.equal(absent.statusCode, 400);
      const objectBody = await f.call(
        'PUT',
        '/accounts/dev-1/devices/tv-1/name',
        { token: tv.accessToken },
        { name: 'x' },
      );
      assert.equal(objectBody.statusCode, 400);
      assert.deepEqual(errorTypes(objectBody), ['VALIDATION_ERROR']);
    });

    it('400 for enabled other than true/false and for a bad qspVersion', async () => {
      for (const value of ['yes', '1', 'TRUE']) {
        const response = await f.call('PUT', `/accounts/dev-1/devices/tv-1/enabled/${value}`, {
          token: tv.accessToken,
        });
        assert.equal(response.statusCode, 400, value);
        assert.deepEqual(errorTypes(response), ['VALIDATION_ERROR']);
      }
      const badQsp = await f.call('GET', '/accounts/dev-1/devices?qspVersion=V9', { token: tv.accessToken });
      assert.equal(badQsp.statusCode, 400);
      assert.match(badQsp.json().errors[0].message, /qspVersion/);
    });

    it('409 DEVICE_DELETE_COOLDOWN with Retry-After inside the cool-down', async () => {
      const response = await f.call('DELETE', '/accounts/dev-1/devices/tv-1', { token: tv.accessToken });
      assert.equal(response.statusCode, 409);
      assert.deepEqual(errorTypes(response), ['DEVICE_DELETE_COOLDOWN']);
      const retryAfter = Number(response.headers['retry-after']);
      assert.ok(retryAfter > 86_000 && retryAfter <= 86_400, String(retryAfter));
      // Bulk delete leaves devices inside their cool-down in place.
      const bulk = await f.call('DELETE', '/accounts/dev-1/devices', { token: tv.accessToken });
      assert.equal(bulk.statusCode, 204);
      assert.equal(
        (await f.call('GET', '/accounts/dev-1/devices/tv-1', { token: tv.accessToken })).statusCode,
        200,
      );
    });

    it('409 DEVICE_LIMIT_REACHED at MAX_DEVICES_PER_ACCOUNT enabled devices (sign-in and enable)', async () => {
      await f.account('dev-limit');
      const first = await f.signIn('dev-limit@example.test', 'd1');
      await f.signIn('dev-limit@example.test', 'd2');
      await f.signIn('dev-limit@example.test', 'd3');
      const fourth = await f.app.inject({
        method: 'POST',
        url: '/api/v1/auth/smarttv/users/authenticate',
        payload: { username: 'dev-limit@example.test', password: 'correct horse battery', deviceId: 'd4' },
      });
      assert.equal(fourth.statusCode, 409);
      assert.deepEqual(errorTypes(fourth), ['DEVICE_LIMIT_REACHED']);
      // Disable one, sign the 4th in, then re-enabling the first is over the limit.
      await f.call('PUT', '/accounts/dev-limit/devices/d1/enabled/false', {
        token: first.accessToken,
        key: f.operatorKey,
      });
      await f.signIn('dev-limit@example.test', 'd4');
      const again = await f.call('PUT', '/accounts/dev-limit/devices/d1/enabled/true', {
        key: f.operatorKey,
      });
      assert.equal(again.statusCode, 409);
      assert.deepEqual(errorTypes(again), ['DEVICE_LIMIT_REACHED']);
    });
  });
});

describe('client-api devices outside the cool-down', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({ DEVICE_DELETE_COOLDOWN: '0' });
    await f.account('del-1');
  });
  after(() => f.close());

  // The filter's refusal first: it signs in tv-2, the one device the bulk delete by class leaves.
  describe('errors', () => {
    it('a deviceClass filter that does not match the device is 404', async () => {
      await f.signIn('del-1@example.test', 'tv-2');
      const response = await f.call('DELETE', '/accounts/del-1/devices/tv-2?deviceClass=web', {
        key: f.operatorKey,
      });
      assert.equal(response.statusCode, 404);
      assert.deepEqual(errorTypes(response), ['DEVICE_NOT_FOUND']);
    });
  });

  describe('happy', () => {
    it('deletes a device (204), ends its sessions, and it is gone (404)', async () => {
      const tv = await f.signIn('del-1@example.test', 'tv-1');
      const keeper = await f.signIn('del-1@example.test', 'web-1', { deviceClass: 'web' });
      const deleted = await f.call('DELETE', '/accounts/del-1/devices/tv-1', { token: keeper.accessToken });
      assert.equal(deleted.statusCode, 204);
      assert.equal(
        (await f.call('GET', '/accounts/del-1/devices', { token: tv.accessToken })).statusCode,
        401,
      );
      const gone = await f.call('GET', '/accounts/del-1/devices/tv-1', { token: keeper.accessToken });
      assert.equal(gone.statusCode, 404);
    });

    it('bulk delete removes the devices of one class, or all', async () => {
      await f.signIn('del-1@example.test', 'web-2', { deviceClass: 'web' });
      const byClass = await f.call('DELETE', '/accounts/del-1/devices?deviceClass=web', {
        key: f.operatorKey,
      });
      assert.equal(byClass.statusCode, 204);
      const left = (await f.call('GET', '/accounts/del-1/devices', { key: f.operatorKey })).json();
      assert.deepEqual(
        left.map((device: { mediaPlayerId: string }) => device.mediaPlayerId),
        ['tv-2'],
      );
      assert.equal(
        (await f.call('DELETE', '/accounts/del-1/devices', { key: f.operatorKey })).statusCode,
        204,
      );
      assert.deepEqual((await f.call('GET', '/accounts/del-1/devices', { key: f.operatorKey })).json(), []);
    });
  });
});
