import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, BASE, errorTypes } from './accounts-fixtures.ts';
import { formatNames, readBody } from './media-formats.ts';

/** GET /accounts/{accountNumber}/devices/signed-in: which devices hold an open session, in every type. */
describe('signed-in devices of an account', () => {
  let fx: AccountsFixture;
  let accountNumber: string;

  before(async () => {
    fx = await accountsFixture();
    const account = await fx.account('acc-signed');
    accountNumber = account.accountNumber;
    await fx.signIn(account.email, 'tv-1');
    await fx.signIn(account.email, 'tv-2');
  });
  after(() => fx.close());

  const signedIn = () =>
    fx.call('GET', `/accounts/${accountNumber}/devices/signed-in`, { key: fx.operatorKey });

  it('lists the devices with an open session; one signed out is no longer listed, though still enabled', async () => {
    assert.deepEqual((await signedIn()).json(), ['tv-1', 'tv-2']);
    const closed = await fx.call('DELETE', `/accounts/${accountNumber}/devices/tv-1/sessions`, {
      key: fx.operatorKey,
    });
    assert.equal(closed.statusCode, 204);
    assert.deepEqual((await signedIn()).json(), ['tv-2']);
    const device = await fx.call('GET', `/accounts/${accountNumber}/devices/tv-1`, { key: fx.operatorKey });
    assert.equal(device.json().enabled, true, 'signed out is not disabled');
  });

  it('404 ACCOUNT_NOT_FOUND for an unknown account', async () => {
    const response = await fx.call('GET', '/accounts/acc-none/devices/signed-in', { key: fx.operatorKey });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(errorTypes(response), ['ACCOUNT_NOT_FOUND']);
  });

  for (const type of formatNames) {
    it(`answers in ${type}`, async () => {
      const response = await fx.app.inject({
        url: `${BASE}/accounts/${accountNumber}/devices/signed-in`,
        headers: { accept: type, 'x-api-key': fx.operatorKey },
      });
      assert.equal(response.statusCode, 200);
      assert.ok(String(response.headers['content-type']).startsWith(type));
      assert.match(JSON.stringify(await readBody(response)), /tv-2/);
      if (type === 'application/xml') assert.match(response.body, /<ArrayOfString/);
    });
  }
});
