import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CampaignTables } from '../../src/client-api/campaigns/repository.ts';
import { freePort } from '../helpers/processes.ts';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';
import { type FakeSubsystem, startFakeSubsystem } from './campaigns-subsystem-fixture.ts';

describe('advertising contacts (local table)', () => {
  let fx: AccountsFixture;
  let tv: SignedIn;

  before(async () => {
    fx = await accountsFixture();
    const a = await fx.account('camp-a');
    await fx.account('camp-b');
    tv = await fx.signIn(a.email, 'tv-1');
  });
  after(() => fx.close());

  describe('happy', () => {
    it('201 with the id of the stored contact', async () => {
      const response = await fx.call('POST', '/smarttv/accounts/camp-a/campaigns/summer?mediaPlayerId=tv-1', {
        token: tv.accessToken,
      });
      assert.equal(response.statusCode, 201, response.body);
      const id = response.json();
      assert.equal(typeof id, 'string');
      const row = await fx.core.database.db
        .withTables<CampaignTables>()
        .selectFrom('ad_contacts')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        {
          account: row.account_number,
          deviceClass: row.device_class,
          campaign: row.campaign,
          device: row.media_player_id,
        },
        { account: 'camp-a', deviceClass: 'smarttv', campaign: 'summer', device: 'tv-1' },
      );
      const operator = await fx.call('POST', '/web/accounts/camp-b/campaigns/summer', {
        key: fx.operatorKey,
      });
      assert.equal(operator.statusCode, 201, operator.body);
    });

    it('answers the id as <string> in XML and as { Value } in BSON', async () => {
      const inject = (accept: string) =>
        fx.app.inject({
          method: 'POST',
          url: '/api/v1/smarttv/accounts/camp-a/campaigns/autumn',
          headers: { authorization: `Bearer ${tv.accessToken}`, accept },
        });
      const xml = await inject('application/xml');
      assert.equal(xml.statusCode, 201);
      const xmlBody = (await decoded(xml)) as { string: string };
      assert.match(xmlBody.string, /^[0-9a-f-]{36}$/);
      const bson = await inject('application/bson');
      assert.equal(bson.statusCode, 201);
      const bsonBody = (await decoded(bson)) as { Value: string };
      assert.match(bsonBody.Value, /^[0-9a-f-]{36}$/);
      assert.notEqual(bsonBody.Value, xmlBody.string);
    });
  });

  describe('errors', () => {
    it('404 for an unknown account or a device not in the account', async () => {
      const account = await fx.call('POST', '/web/accounts/nobody/campaigns/summer', { key: fx.operatorKey });
      assert.equal(account.statusCode, 404);
      assert.deepEqual(errorTypes(account), ['ACCOUNT_NOT_FOUND']);
      const device = await fx.call('POST', '/smarttv/accounts/camp-a/campaigns/summer?mediaPlayerId=ghost', {
        token: tv.accessToken,
      });
      assert.equal(device.statusCode, 404);
      assert.deepEqual(errorTypes(device), ['DEVICE_NOT_FOUND']);
    });

    it('400 for a 25-character campaign or deviceClass and other limits', async () => {
      const token = tv.accessToken;
      for (const [name, path] of [
        ['campaign 25', `/smarttv/accounts/camp-a/campaigns/${'c'.repeat(25)}`],
        ['deviceClass 25', `/${'d'.repeat(25)}/accounts/camp-a/campaigns/summer`],
        ['accountNumber 49', `/smarttv/accounts/${'a'.repeat(49)}/campaigns/summer`],
        ['mediaPlayerId 49', `/smarttv/accounts/camp-a/campaigns/summer?mediaPlayerId=${'m'.repeat(49)}`],
      ] as const) {
        const response = await fx.call('POST', path, { token });
        assert.equal(response.statusCode, 400, name);
        assert.deepEqual(errorTypes(response), ['VALIDATION_ERROR'], name);
      }
      // 24 is the limit, not beyond it.
      assert.equal(
        (await fx.call('POST', `/smarttv/accounts/camp-a/campaigns/${'c'.repeat(24)}`, { token })).statusCode,
        201,
      );
    });
  });

  describe('security', () => {
    it("401 without credentials, 403 for another account's token", async () => {
      assert.equal((await fx.call('POST', '/smarttv/accounts/camp-a/campaigns/summer')).statusCode, 401);
      const other = await fx.call('POST', '/smarttv/accounts/camp-b/campaigns/summer', {
        token: tv.accessToken,
      });
      assert.equal(other.statusCode, 403);
      assert.deepEqual(errorTypes(other), ['ACCESS_DENIED']);
    });
  });
});

describe('advertising contacts (CAMPAIGNS_URL)', () => {
  let fx: AccountsFixture;
  let upstream: FakeSubsystem;
  let tv: SignedIn;

  before(async () => {
    upstream = await startFakeSubsystem();
    fx = await accountsFixture({ CAMPAIGNS_URL: `${upstream.url}/v2`, SUBSYSTEM_TIMEOUT_MS: '2000' });
    const a = await fx.account('camp-r');
    tv = await fx.signIn(a.email, 'tv-1');
  });
  after(async () => {
    await fx.close();
    await upstream.close();
  });

  const add = () =>
    fx.call('POST', '/smarttv/accounts/camp-r/campaigns/winter?mediaPlayerId=tv-1', {
      token: tv.accessToken,
    });

  describe('happy', () => {
    it('forwards the contact and answers the id the subsystem gives', async () => {
      upstream.mode = { kind: 'answer', status: 201, body: { id: 'upstream-42' } };
      const response = await add();
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json(), 'upstream-42');
      const seen = upstream.seen.at(-1);
      assert.equal(seen?.method, 'POST');
      assert.equal(seen?.url, '/v2/contacts');
      assert.deepEqual(seen?.body, {
        deviceClass: 'smarttv',
        accountNumber: 'camp-r',
        campaign: 'winter',
        mediaPlayerId: 'tv-1',
      });
    });
  });

  describe('errors', () => {
    for (const [name, mode] of [
      ['answers 500', { kind: 'answer', status: 500, body: { error: 'boom' } }],
      ['hangs past the timeout', { kind: 'hang' }],
      ['drops the connection', { kind: 'reset' }],
      ['answers without an id', { kind: 'answer', status: 200, body: { ok: true } }],
      ['answers something that is not JSON', { kind: 'answer', status: 200, raw: 'ok' }],
    ] as const) {
      it(`502 with the error body when the subsystem ${name}`, async () => {
        upstream.mode = mode;
        const response = await add();
        assert.equal(response.statusCode, 502, response.body);
        assert.equal(response.json().code, 'BAD_GATEWAY');
        assert.deepEqual(errorTypes(response), ['SUBSYSTEM_ERROR']);
        assert.ok(!response.body.includes('boom'), 'what the subsystem said stays in the log');
      });
    }

    it('502 when the subsystem cannot be reached', async () => {
      const closed = await accountsFixture({ CAMPAIGNS_URL: `http://127.0.0.1:${await freePort()}` });
      try {
        const response = await closed.call('POST', '/web/accounts/x/campaigns/y', {
          key: closed.operatorKey,
        });
        // The account check comes first: an unknown account is 404 before any forwarding.
        assert.equal(response.statusCode, 404);
        await closed.account('camp-z');
        const forwarded = await closed.call('POST', '/web/accounts/camp-z/campaigns/y', {
          key: closed.operatorKey,
        });
        assert.equal(forwarded.statusCode, 502);
        assert.deepEqual(errorTypes(forwarded), ['SUBSYSTEM_ERROR']);
      } finally {
        await closed.close();
      }
    });
  });
});
