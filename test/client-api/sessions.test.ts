import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/core/config.ts';
import { openCore } from '../../src/core/core.ts';
import { buildServiceApp } from '../../src/core/http/service-app.ts';
import { services } from '../../src/family.ts';
import { type AccountsFixture, accountsFixture, BASE, errorTypes } from './accounts-fixtures.ts';

/**
 * Closing sessions: one device's (DELETE /accounts/{accountNumber}/devices/{deviceId}/sessions) and an
 * account's (DELETE /accounts/{accountNumber}/sessions), by qspVersion; what a closed or idle session's tokens
 * get afterwards, here and in another process. Every operation's refusal of a closed session is checked
 * across the document (session-refusal-every-operation).
 */
describe('client-api sessions', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture();
    await f.account('ses-1');
    await f.account('xp-1');
  });
  after(() => f.close());

  describe('happy', () => {
    it('closes one device session: its token is 401 at once, the other device keeps working; a second close is 404', async () => {
      const tv = await f.signIn('ses-1@example.test', 'tv-1');
      const web = await f.signIn('ses-1@example.test', 'web-1', { deviceClass: 'web' });
      const closed = await f.call('DELETE', '/accounts/ses-1/devices/tv-1/sessions', {
        token: web.accessToken,
      });
      assert.equal(closed.statusCode, 204);
      assert.equal(closed.body, '');
      const refused = await f.call('GET', '/accounts/ses-1/devices', { token: tv.accessToken });
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(errorTypes(refused), ['TOKEN_INVALID']);
      assert.match(String(refused.headers['www-authenticate']), /^Bearer /);
      assert.equal(
        (await f.call('GET', '/accounts/ses-1/devices', { token: web.accessToken })).statusCode,
        200,
      );
      const again = await f.call('DELETE', '/accounts/ses-1/devices/tv-1/sessions', {
        token: web.accessToken,
      });
      assert.equal(again.statusCode, 404);
      assert.deepEqual(errorTypes(again), ['SESSION_NOT_FOUND']);
      // The refresh token of a closed session is refused too.
      const refresh = await f.app.inject({
        method: 'GET',
        url: '/api/v1/auth/devices/smarttv/tv-1/tokens',
        headers: { authorization: `Bearer ${tv.refreshToken}` },
      });
      assert.equal(refresh.statusCode, 401);
    });

    it('a device left with no open session plays nothing: its stream ends with its last session, at once', async () => {
      const owner = await f.account('ses-play');
      const tv = await f.signIn(owner.email, 'tv-1');
      await f.signIn(owner.email, 'tv-1', { qspVersion: 'V2' });
      const phone = await f.signIn(owner.email, 'phone-1', { deviceClass: 'android' });
      for (const [token, device] of [
        [tv.accessToken, 'smarttv/tv-1'],
        [phone.accessToken, 'android/phone-1'],
      ] as const) {
        const started = await f.call('PUT', `/${device}/users/${owner.userHash}/playback/77?offset=3`, {
          token,
        });
        assert.equal(started.statusCode, 200, started.body);
      }
      const playing = async () => {
        const watching = await f.call('GET', '/accounts/ses-play/playback', { token: phone.accessToken });
        assert.equal(watching.statusCode, 200, watching.body);
        return (watching.json() as { streams: Array<{ deviceId: string }> }).streams.map((s) => s.deviceId);
      };
      assert.deepEqual(await playing(), ['tv-1', 'phone-1']);
      // One of the TV's two sessions closed: it is still signed in, and still plays.
      const closeV2 = await f.call('DELETE', '/accounts/ses-play/devices/tv-1/sessions?qspVersion=V2', {
        token: phone.accessToken,
      });
      assert.equal(closeV2.statusCode, 204);
      assert.deepEqual(await playing(), ['tv-1', 'phone-1']);
      // Its last session closed: its stream is over now, not PLAYBACK_STALE_AFTER later.
      const closeAll = await f.call('DELETE', '/accounts/ses-play/devices/tv-1/sessions', {
        token: phone.accessToken,
      });
      assert.equal(closeAll.statusCode, 204);
      assert.deepEqual(await playing(), ['phone-1']);
    });

    it('a qspVersion addresses only its own sessions; All addresses every one', async () => {
      await f.account('ses-2');
      const v2 = await f.signIn('ses-2@example.test', 'tv-1', { qspVersion: 'V2' });
      const v3 = await f.signIn('ses-2@example.test', 'tv-2');
      const ssp = await f.signIn('ses-2@example.test', 'tv-3', { qspVersion: 'Ssp' });
      const closeV2 = await f.call('DELETE', '/accounts/ses-2/sessions?qspVersion=V2', {
        key: f.operatorKey,
      });
      assert.equal(closeV2.statusCode, 204);
      assert.equal(
        (await f.call('GET', '/accounts/ses-2/devices', { token: v2.accessToken })).statusCode,
        401,
      );
      assert.equal(
        (await f.call('GET', '/accounts/ses-2/devices', { token: v3.accessToken })).statusCode,
        200,
      );
      // Default V3: closes tv-2's session only.
      assert.equal(
        (await f.call('DELETE', '/accounts/ses-2/sessions', { key: f.operatorKey })).statusCode,
        204,
      );
      assert.equal(
        (await f.call('GET', '/accounts/ses-2/devices', { token: v3.accessToken })).statusCode,
        401,
      );
      assert.equal(
        (await f.call('GET', '/accounts/ses-2/devices', { token: ssp.accessToken })).statusCode,
        200,
      );
      const noneLeftV3 = await f.call('DELETE', '/accounts/ses-2/sessions', { key: f.operatorKey });
      assert.equal(noneLeftV3.statusCode, 404);
      assert.deepEqual(errorTypes(noneLeftV3), ['SESSION_NOT_FOUND']);
      const all = await f.call('DELETE', '/accounts/ses-2/sessions?qspVersion=All', {
        token: ssp.accessToken,
      });
      assert.equal(all.statusCode, 204);
      assert.equal(
        (await f.call('GET', '/accounts/ses-2/devices', { token: ssp.accessToken })).statusCode,
        401,
      );
      const empty = await f.call('DELETE', '/accounts/ses-2/sessions?qspVersion=All', { key: f.operatorKey });
      assert.equal(empty.statusCode, 404);
    });
  });

  describe('errors', () => {
    it('device sessions honour qspVersion too; an unknown device is 404 DEVICE_NOT_FOUND', async () => {
      await f.account('ses-3');
      const v2 = await f.signIn('ses-3@example.test', 'tv-1', { qspVersion: 'V2' });
      const wrongVersion = await f.call('DELETE', '/accounts/ses-3/devices/tv-1/sessions', {
        key: f.operatorKey,
      });
      assert.equal(wrongVersion.statusCode, 404);
      assert.deepEqual(errorTypes(wrongVersion), ['SESSION_NOT_FOUND']);
      assert.equal(
        (await f.call('GET', '/accounts/ses-3/devices', { token: v2.accessToken })).statusCode,
        200,
      );
      const ghost = await f.call('DELETE', '/accounts/ses-3/devices/ghost/sessions?qspVersion=All', {
        key: f.operatorKey,
      });
      assert.equal(ghost.statusCode, 404);
      assert.deepEqual(errorTypes(ghost), ['DEVICE_NOT_FOUND']);
    });

    it('400 for a qspVersion outside the enum; 404 ACCOUNT_NOT_FOUND for an unknown account', async () => {
      const bad = await f.call('DELETE', '/accounts/ses-1/sessions?qspVersion=V4', { key: f.operatorKey });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(errorTypes(bad), ['VALIDATION_ERROR']);
      const unknown = await f.call('DELETE', '/accounts/ghost/sessions', { key: f.operatorKey });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(errorTypes(unknown), ['ACCOUNT_NOT_FOUND']);
    });
  });

  describe('security', () => {
    it('a session closed through one process refuses its token on another sharing the database', async () => {
      // A second core and app on the same store: what a second process behind a load balancer is.
      const otherCore = await openCore(loadConfig(f.core.env as NodeJS.ProcessEnv), { migrate: false });
      const other = await buildServiceApp(otherCore, services['client-api']);
      try {
        const tv = await f.signIn('xp-1@example.test', 'tv-1');
        const read = () =>
          other.inject({
            method: 'GET',
            url: `${BASE}/accounts/xp-1/devices`,
            headers: { authorization: `Bearer ${tv.accessToken}` },
          });
        assert.equal((await read()).statusCode, 200, 'the other process verifies the token (shared keys)');
        assert.equal((await read()).statusCode, 200);
        const closed = await f.call('DELETE', '/accounts/xp-1/sessions', { key: f.operatorKey });
        assert.equal(closed.statusCode, 204);
        const refused = await read();
        assert.equal(refused.statusCode, 401);
        assert.deepEqual(errorTypes(refused), ['TOKEN_INVALID']);
      } finally {
        await other.close();
        await otherCore.close();
      }
    });

    // Its own service: one whose sessions go idle after a second.
    describe('client-api idle sessions', () => {
      let f: AccountsFixture;
      before(async () => {
        f = await accountsFixture({ SESSION_IDLE_TIMEOUT: '1' });
        await f.account('idle-1');
      });
      after(() => f.close());

      it('a session unused for SESSION_IDLE_TIMEOUT refuses its access and refresh tokens', async () => {
        const tv = await f.signIn('idle-1@example.test', 'tv-1');
        assert.equal(
          (await f.call('GET', '/accounts/idle-1/devices', { token: tv.accessToken })).statusCode,
          200,
        );
        await new Promise((resolve) => setTimeout(resolve, 1100));
        assert.equal(
          (await f.call('GET', '/accounts/idle-1/devices', { token: tv.accessToken })).statusCode,
          401,
        );
        const refresh = await f.app.inject({
          method: 'GET',
          url: '/api/v1/auth/devices/smarttv/tv-1/tokens',
          headers: { authorization: `Bearer ${tv.refreshToken}` },
        });
        assert.equal(refresh.statusCode, 401);
      });
    });
  });
});
