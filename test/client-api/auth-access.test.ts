import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isHeadTwin } from '../helpers/head-twins.ts';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';
type Access = 'account' | 'person' | 'operator';

/**
 * Who may call each account and user route: `account` = a token of that account or an operator key;
 * `person` = a token of that account only (no operator key); `operator` = an operator (backoffice) key only. Every operation of the Swagger document under
 * /accounts and /users must be listed here (checked below), so no route escapes the security cases.
 */
const accessTable: Array<{ method: Method; path: string; access: Access; body?: unknown }> = [
  { method: 'GET', path: '/accounts/{accountNumber}/devices', access: 'account' },
  { method: 'DELETE', path: '/accounts/{accountNumber}/devices', access: 'account' },
  { method: 'GET', path: '/accounts/{accountNumber}/devices/playing', access: 'account' },
  { method: 'GET', path: '/accounts/{accountNumber}/devices/signed-in', access: 'account' },
  { method: 'GET', path: '/accounts/{accountNumber}/bookmarks', access: 'account' },
  { method: 'GET', path: '/accounts/{accountNumber}/devices/{mediaPlayerId}', access: 'account' },
  { method: 'DELETE', path: '/accounts/{accountNumber}/devices/{mediaPlayerId}', access: 'account' },
  {
    method: 'PUT',
    path: '/accounts/{accountNumber}/devices/{mediaPlayerId}/enabled/{enabled}',
    access: 'account',
  },
  { method: 'GET', path: '/accounts/{accountNumber}/devices/{mediaPlayerId}/name', access: 'account' },
  {
    method: 'PUT',
    path: '/accounts/{accountNumber}/devices/{mediaPlayerId}/name',
    access: 'account',
    body: 'Den',
  },
  { method: 'DELETE', path: '/accounts/{accountNumber}/sessions', access: 'account' },
  // An operator key passes the guards, then is 409 NO_CURRENT_SESSION: it rests on no session.
  { method: 'DELETE', path: '/accounts/{accountNumber}/sessions/current', access: 'account' },
  { method: 'DELETE', path: '/accounts/{accountNumber}/devices/{mediaPlayerId}/sessions', access: 'account' },
  { method: 'GET', path: '/accounts/{accountNumber}/userHash', access: 'account' },
  { method: 'HEAD', path: '/accounts/{accountNumber}/subscriptions/homezone', access: 'account' },
  { method: 'GET', path: '/accounts/{accountNumber}/device-sign-ins/{userCode}', access: 'person' },
  {
    method: 'PUT',
    path: '/accounts/{accountNumber}/device-sign-ins/{userCode}/approved/{approved}',
    access: 'person',
  },
  {
    method: 'POST',
    path: '/accounts/{accountNumber}/devices/{mediaPlayerId}/commands',
    access: 'account',
    body: { type: 'stop' },
  },
  {
    method: 'GET',
    path: '/accounts/{accountNumber}/devices/{mediaPlayerId}/commands/{commandId}',
    access: 'account',
  },
  { method: 'GET', path: '/accounts/{accountNumber}/playback', access: 'account' },
  {
    method: 'POST',
    path: '/accounts/{accountNumber}/playback/handoff',
    access: 'account',
    body: { from: 'tv-a', to: 'tv-b' },
  },
  { method: 'PUT', path: '/accounts/{accountNumber}/stream-limit/{limit}', access: 'operator' },
  { method: 'GET', path: '/users/{email}', access: 'operator' },
  { method: 'GET', path: '/users2/{email}', access: 'operator' },
];

const fill = (path: string, accountNumber: string) =>
  path
    .replace('{accountNumber}', accountNumber)
    .replace('{mediaPlayerId}', 'tv-1')
    .replace('{enabled}', 'true')
    .replace('{userCode}', 'BDWP-HQPK')
    .replace('{approved}', 'true')
    .replace('{commandId}', 'c1')
    .replace('{limit}', '3')
    .replace('{email}', `${accountNumber}@example.test`);

describe('client-api access (generated from one table)', () => {
  let f: AccountsFixture;
  let own: SignedIn;
  let other: SignedIn;
  let clientKey: string;
  let revokedKey: string;

  before(async () => {
    f = await accountsFixture();
    await f.account('acc-own');
    await f.account('acc-other');
    own = await f.signIn('acc-own@example.test', 'tv-1');
    other = await f.signIn('acc-other@example.test', 'tv-1');
    clientKey = (await f.core.apiKeys.create('client', 'not an operator')).key;
    const revoked = await f.core.apiKeys.create('backoffice', 'revoked operator');
    await f.core.apiKeys.revoke(revoked.id);
    revokedKey = revoked.key;
  });
  after(() => f.close());

  it('the table lists every operation of the document under /accounts and /users', async () => {
    const document = await f.document();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/accounts/') || path.startsWith('/users'))
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => !isHeadTwin(operations, method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    const listed = accessTable.map((row) => `${row.method} ${row.path}`).sort();
    assert.deepEqual(listed, documented);
    for (const row of accessTable) {
      const security = document.paths[row.path][row.method.toLowerCase()].security;
      const expected = {
        operator: [{ ApiKey: [] }],
        person: [{ BearerToken: [] }],
        account: [{ BearerToken: [] }, { ApiKey: [] }],
      }[row.access];
      assert.deepEqual(security, expected, `${row.method} ${row.path} documents its security`);
    }
  });

  for (const row of accessTable) {
    const name = `${row.method} ${row.path}`;
    const send = (path: string, auth: { token?: string; key?: string }) =>
      f.call(row.method, path, auth, row.body);
    const expectType = (response: Awaited<ReturnType<typeof send>>, type: string) => {
      // HEAD answers carry no body.
      if (row.method !== 'HEAD') assert.deepEqual(errorTypes(response), [type], name);
    };

    it(`${name}: 401 without credentials, with a bad token, an unknown or a revoked key`, async () => {
      const path = fill(row.path, 'acc-own');
      const none = await send(path, {});
      assert.equal(none.statusCode, 401, name);
      expectType(none, 'CREDENTIALS_MISSING');
      const badToken = await send(path, { token: 'eyJhbGciOiJFUzI1NiJ9.e30.AAAA' });
      assert.equal(badToken.statusCode, 401, name);
      expectType(badToken, 'TOKEN_INVALID');
      for (const key of [
        'snt_backoffice_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        revokedKey,
      ]) {
        const response = await send(path, { key });
        assert.equal(response.statusCode, 401, name);
        expectType(response, 'API_KEY_INVALID');
      }
    });

    it(`${name}: 403 for a key of another class${row.access === 'operator' ? ' and for any device token' : " and for another account's token"}${row.access === 'person' ? ' and for an operator key' : ''}`, async () => {
      const path = fill(row.path, 'acc-own');
      const wrongClass = await send(path, { key: clientKey });
      assert.equal(wrongClass.statusCode, 403, name);
      expectType(wrongClass, 'ACCESS_DENIED');
      const foreign = await send(path, { token: other.accessToken });
      assert.equal(foreign.statusCode, 403, name);
      expectType(foreign, 'ACCESS_DENIED');
      if (row.access === 'operator') {
        const ownToken = await send(path, { token: own.accessToken });
        assert.equal(ownToken.statusCode, 403, name);
      }
      if (row.access === 'person') {
        const operator = await send(path, { key: f.operatorKey });
        assert.equal(operator.statusCode, 403, name);
        expectType(operator, 'ACCESS_DENIED');
      }
    });

    it(`${name}: passes for ${{ account: "the account's own token and an operator key", person: "the account's own token", operator: 'an operator key' }[row.access]}`, async () => {
      const path = fill(row.path, 'acc-own');
      const callers = {
        account: [{ token: own.accessToken }, { key: f.operatorKey }],
        person: [{ token: own.accessToken }],
        operator: [{ key: f.operatorKey }],
      }[row.access];
      for (const caller of callers) {
        const response = await send(path, caller);
        assert.ok(
          ![401, 403].includes(response.statusCode),
          `${name} ${Object.keys(caller)[0]}: ${response.statusCode} ${response.body}`,
        );
      }
      // A DELETE may have closed the sessions of the account (its own token included): sign in again.
      if (row.method === 'DELETE') own = await f.signIn('acc-own@example.test', 'tv-1');
    });
  }
});
