import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';
import { type FakeSubsystem, startFakeSubsystem } from './campaigns-subsystem-fixture.ts';

describe('subscriptions (local store)', () => {
  let fx: AccountsFixture;
  let a: SignedIn;
  let b: SignedIn;

  before(async () => {
    fx = await accountsFixture();
    a = await fx.signIn((await fx.account('sub-a')).email, 'tv-a');
    b = await fx.signIn((await fx.account('sub-b')).email, 'tv-b');
  });
  after(() => fx.close());

  const upgrade = (
    auth: { token?: string; key?: string },
    user: string,
    offer: string,
    deviceClass = 'smarttv',
  ) => fx.call('POST', `/${deviceClass}/users/${user}/subscriptions/${offer}/dth/enabled`, auth);
  const homeZone = (auth: { token?: string; key?: string }, account: string) =>
    fx.call('HEAD', `/accounts/${account}/subscriptions/homezone`, auth);

  describe('happy', () => {
    it('enables the offer and answers the subscription; enabling again keeps the first time', async () => {
      const first = await upgrade({ token: a.accessToken }, a.platformUserId, 'P-100;SPORTS');
      assert.equal(first.statusCode, 200, first.body);
      const body = first.json();
      assert.deepEqual(
        { ...body, enabledAt: undefined },
        {
          platformUserId: a.platformUserId,
          accountNumber: 'sub-a',
          codPersona: 'P-100',
          codOferta: 'SPORTS',
          product: 'dth',
          enabled: true,
          enabledAt: undefined,
        },
      );
      const again = await upgrade({ token: a.accessToken }, a.platformUserId, 'P-100%3BSPORTS');
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().enabledAt, body.enabledAt);
      // The user record lists the offer.
      const user = await fx.call('GET', '/users/sub-a@example.test', { key: fx.operatorKey });
      assert.equal(user.statusCode, 200, user.body);
      assert.ok((user.json().subscriptions as string[]).includes('SPORTS'), user.body);
    });

    it('HEAD homezone: 404 until a home-zone offer is enabled, then 204', async () => {
      const before = await homeZone({ token: b.accessToken }, 'sub-b');
      assert.equal(before.statusCode, 404);
      assert.equal(before.body, '');
      const enabled = await upgrade({ key: fx.operatorKey }, b.platformUserId, 'P-200;HOMEZONE', 'web');
      assert.equal(enabled.statusCode, 200, enabled.body);
      const after = await homeZone({ token: b.accessToken }, 'sub-b');
      assert.equal(after.statusCode, 204);
      assert.equal(after.body, '');
      assert.equal((await homeZone({ key: fx.operatorKey }, 'sub-b')).statusCode, 204);
      // A non-home-zone offer does not count.
      assert.equal((await homeZone({ key: fx.operatorKey }, 'sub-a')).statusCode, 404);
    });

    it('answers in BSON too', async () => {
      const response = await fx.app.inject({
        method: 'POST',
        url: `/api/v1/smarttv/users/${a.platformUserId}/subscriptions/P-300;MOVIES/dth/enabled`,
        headers: { authorization: `Bearer ${a.accessToken}`, accept: 'application/bson' },
      });
      assert.equal(response.statusCode, 200);
      const body = (await decoded(response)) as Record<string, unknown>;
      assert.equal(body.codPersona, 'P-300');
      assert.equal(body.codOferta, 'MOVIES');
      assert.equal(body.product, 'dth');
      assert.equal(body.enabled, true);
    });
  });

  describe('errors', () => {
    it('404 for an unknown user', async () => {
      const response = await upgrade({ key: fx.operatorKey }, 'nobody', 'P;O');
      assert.equal(response.statusCode, 404);
      assert.deepEqual(errorTypes(response), ['USER_NOT_FOUND']);
    });

    it('400 for a malformed offer, a 25-character deviceClass or a long account number', async () => {
      const token = a.accessToken;
      for (const [name, offer, deviceClass] of [
        ['no semicolon', 'P-100', 'smarttv'],
        ['two semicolons', 'P;O;X', 'smarttv'],
        ['empty codPersona', ';O', 'smarttv'],
        ['empty codOferta', 'P;', 'smarttv'],
        ['codOferta 49', `P;${'o'.repeat(49)}`, 'smarttv'],
        ['deviceClass 25', 'P;O', 'd'.repeat(25)],
      ] as const) {
        const response = await upgrade({ token }, a.platformUserId, offer, deviceClass);
        assert.equal(response.statusCode, 400, name);
        assert.deepEqual(errorTypes(response), ['VALIDATION_ERROR'], name);
      }
      assert.equal((await homeZone({ key: fx.operatorKey }, 'a'.repeat(49))).statusCode, 400);
    });
  });

  describe('security', () => {
    it('401 without credentials; 403 for another user or account', async () => {
      assert.equal((await upgrade({}, a.platformUserId, 'P;O')).statusCode, 401);
      assert.equal((await homeZone({}, 'sub-a')).statusCode, 401);
      const otherUser = await upgrade({ token: a.accessToken }, b.platformUserId, 'P;O');
      assert.equal(otherUser.statusCode, 403);
      assert.deepEqual(errorTypes(otherUser), ['USER_MISMATCH']);
      assert.equal((await homeZone({ token: a.accessToken }, 'sub-b')).statusCode, 403);
    });
  });
});

describe('subscriptions (SUBSCRIPTIONS_URL)', () => {
  let fx: AccountsFixture;
  let upstream: FakeSubsystem;
  let a: SignedIn;

  before(async () => {
    upstream = await startFakeSubsystem();
    fx = await accountsFixture({ SUBSCRIPTIONS_URL: upstream.url, SUBSYSTEM_TIMEOUT_MS: '2000' });
    a = await fx.signIn((await fx.account('sub-r')).email, 'tv-r');
  });
  after(async () => {
    await fx.close();
    await upstream.close();
  });

  describe('happy', () => {
    it('sends the upgrade to the back end and answers the subscription', async () => {
      upstream.mode = {
        kind: 'answer',
        status: 200,
        body: { enabledAt: '2026-01-02T03:04:05.000Z', extra: 1 },
      };
      const response = await fx.call(
        'POST',
        `/smarttv/users/${a.platformUserId}/subscriptions/P9;HOMEZONE/dth/enabled`,
        {
          token: a.accessToken,
        },
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().enabledAt, '2026-01-02T03:04:05.000Z');
      const seen = upstream.seen.at(-1);
      assert.equal(seen?.url, `/users/${a.platformUserId}/subscriptions`);
      assert.deepEqual(seen?.body, {
        accountNumber: 'sub-r',
        codPersona: 'P9',
        codOferta: 'HOMEZONE',
        product: 'dth',
        enabled: true,
      });
    });

    it('HEAD homezone asks the back end: 2xx is 204, 404 is 404', async () => {
      upstream.mode = { kind: 'answer', status: 204 };
      assert.equal(
        (await fx.call('HEAD', '/accounts/sub-r/subscriptions/homezone', { token: a.accessToken }))
          .statusCode,
        204,
      );
      assert.equal(upstream.seen.at(-1)?.url, '/accounts/sub-r/subscriptions/homezone');
      upstream.mode = { kind: 'answer', status: 404, body: { message: 'no' } };
      assert.equal(
        (await fx.call('HEAD', '/accounts/sub-r/subscriptions/homezone', { token: a.accessToken }))
          .statusCode,
        404,
      );
    });
  });

  describe('errors', () => {
    for (const [name, mode] of [
      ['answers 500', { kind: 'answer', status: 500, body: { error: 'down' } }],
      ['hangs past the timeout', { kind: 'hang' }],
    ] as const) {
      it(`502 when the back end ${name}`, async () => {
        upstream.mode = mode;
        const upgrade = await fx.call(
          'POST',
          `/smarttv/users/${a.platformUserId}/subscriptions/P9;X/dth/enabled`,
          {
            token: a.accessToken,
          },
        );
        assert.equal(upgrade.statusCode, 502, upgrade.body);
        assert.equal(upgrade.json().code, 'BAD_GATEWAY');
        assert.deepEqual(errorTypes(upgrade), ['SUBSYSTEM_ERROR']);
        const head = await fx.call('HEAD', '/accounts/sub-r/subscriptions/homezone', {
          token: a.accessToken,
        });
        assert.equal(head.statusCode, 502);
      });
    }
  });
});
