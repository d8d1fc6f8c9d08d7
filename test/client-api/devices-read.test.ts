import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertFields } from '../helpers/fields.ts';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';
import { formatNames, readBody } from './media-formats.ts';

/** The fields of a DeviceBase, no more, no fewer. */
const DEVICE_FIELDS = [
  'deviceClass',
  'enabled',
  'lastSeenAt',
  'mediaPlayerId',
  'name',
  'playing',
  'registeredAt',
];

/**
 * Reading an account's devices: the list (GET /accounts/{accountNumber}/devices), one device and its name,
 * the playing ones and the signed-in ones. Their changes (rename, enable, delete) are in
 * devices-change.test.ts; access by credentials and closed sessions are checked over every operation
 * (auth-access, session-refusal-every-operation), the media types in media-*.
 */
describe('client-api devices', () => {
  let f: AccountsFixture;
  let tv: SignedIn;
  let accountNumber: string;
  before(async () => {
    f = await accountsFixture({ MAX_DEVICES_PER_ACCOUNT: '3', PLAYING_WINDOW: '60' });
    await f.account('dev-1');
    tv = await f.signIn('dev-1@example.test', 'tv-1', { deviceName: 'Living room' });
    // The signed-in list's account: two devices with a session each.
    const account = await f.account('acc-signed');
    accountNumber = account.accountNumber;
    await f.signIn(account.email, 'tv-1');
    await f.signIn(account.email, 'tv-2');
  });
  after(() => f.close());

  const signedIn = () =>
    f.call('GET', `/accounts/${accountNumber}/devices/signed-in`, { key: f.operatorKey });

  describe('happy', () => {
    it('lists the account devices as DeviceBase', async () => {
      const response = await f.call('GET', '/accounts/dev-1/devices', { token: tv.accessToken });
      assert.equal(response.statusCode, 200);
      const [device, ...rest] = response.json();
      assert.equal(rest.length, 0);
      assertFields(device, DEVICE_FIELDS);
      assert.equal(device.mediaPlayerId, 'tv-1');
      assert.equal(device.name, 'Living room');
      assert.equal(device.deviceClass, 'smarttv');
      assert.equal(device.enabled, true);
      assert.equal(device.playing, false);
      assert.ok(!Number.isNaN(Date.parse(device.registeredAt)));
    });

    it('reads one device and its name; an operator key reads it too', async () => {
      const one = await f.call('GET', '/accounts/dev-1/devices/tv-1', { token: tv.accessToken });
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().mediaPlayerId, 'tv-1');
      const name = await f.call('GET', '/accounts/dev-1/devices/tv-1/name', { key: f.operatorKey });
      assert.equal(name.statusCode, 200);
      assert.deepEqual(name.json(), { mediaPlayerId: 'tv-1', name: 'Living room' });
    });

    it('marks a device playing within PLAYING_WINDOW (markPlaying) and lists it', async () => {
      const devices = f.api.repositories.devices;
      await devices.markPlaying('dev-1', 'tv-1', Date.now());
      const playing = await f.call('GET', '/accounts/dev-1/devices/playing', { token: tv.accessToken });
      assert.equal(playing.statusCode, 200);
      assert.deepEqual(playing.json(), ['tv-1']);
      const device = await f.call('GET', '/accounts/dev-1/devices/tv-1', { token: tv.accessToken });
      assert.equal(device.json().playing, true);
      await devices.markPlaying('dev-1', 'tv-1', Date.now() - 61_000);
      const stale = await f.call('GET', '/accounts/dev-1/devices/playing', { token: tv.accessToken });
      assert.deepEqual(stale.json(), []);
    });

    it('lists the devices with an open session; one signed out is no longer listed, though still enabled', async () => {
      assert.deepEqual((await signedIn()).json(), ['tv-1', 'tv-2']);
      const closed = await f.call('DELETE', `/accounts/${accountNumber}/devices/tv-1/sessions`, {
        key: f.operatorKey,
      });
      assert.equal(closed.statusCode, 204);
      assert.deepEqual((await signedIn()).json(), ['tv-2']);
      const device = await f.call('GET', `/accounts/${accountNumber}/devices/tv-1`, { key: f.operatorKey });
      assert.equal(device.json().enabled, true, 'signed out is not disabled');
    });

    for (const type of formatNames) {
      it(`answers in ${type}`, async () => {
        const response = await f.call('GET', `/accounts/${accountNumber}/devices/signed-in`, {
          key: f.operatorKey,
          accept: type,
        });
        assert.equal(response.statusCode, 200);
        assert.ok(String(response.headers['content-type']).startsWith(type));
        assert.match(JSON.stringify(await readBody(response)), /tv-2/);
        if (type === 'application/xml') assert.match(response.body, /<ArrayOfString/);
      });
    }
  });

  describe('errors', () => {
    it('404 ACCOUNT_NOT_FOUND and DEVICE_NOT_FOUND (operator on an unknown account; unknown device)', async () => {
      const noAccount = await f.call('GET', '/accounts/nobody/devices', { key: f.operatorKey });
      assert.equal(noAccount.statusCode, 404);
      assert.deepEqual(noAccount.json(), {
        code: 'NOT_FOUND',
        message: 'No such account.',
        errors: [{ type: 'ACCOUNT_NOT_FOUND', message: 'No such account.' }],
      });
      for (const [method, path] of [
        ['GET', '/accounts/dev-1/devices/ghost'],
        ['GET', '/accounts/dev-1/devices/ghost/name'],
        ['PUT', '/accounts/dev-1/devices/ghost/enabled/true'],
        ['DELETE', '/accounts/dev-1/devices/ghost'],
      ] as const) {
        const response = await f.call(method, path, { token: tv.accessToken });
        assert.equal(response.statusCode, 404, path);
        assert.deepEqual(errorTypes(response), ['DEVICE_NOT_FOUND'], path);
      }
    });

    it('404 ACCOUNT_NOT_FOUND for an unknown account', async () => {
      const response = await f.call('GET', '/accounts/acc-none/devices/signed-in', { key: f.operatorKey });
      assert.equal(response.statusCode, 404);
      assert.deepEqual(errorTypes(response), ['ACCOUNT_NOT_FOUND']);
    });
  });
});
