import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertFields } from '../helpers/fields.ts';
import { type AccountsFixture, accountsFixture, errorTypes, PASSWORD } from './accounts-fixtures.ts';

describe('client-api users and userHash', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture();
    await f.account('usr-1');
    await f.account('usr-2');
    // The same e-mail in a second account.
    await f.api.users.create({
      accountNumber: 'usr-2',
      email: 'USR-1@Example.test',
      password: PASSWORD,
      profiles: [],
    });
  });
  after(() => f.close());

  it('GET /users/{email} returns the oldest user with it, case-insensitively (operators)', async () => {
    const response = await f.call('GET', '/users/Usr-1@example.test', { key: f.operatorKey });
    assert.equal(response.statusCode, 200);
    const user = response.json();
    assertFields(user, ['accountNumber', 'email', 'platformUserId', 'profiles', 'subscriptions', 'userHash']);
    assert.equal(user.accountNumber, 'usr-1');
    assert.equal(user.email, 'usr-1@example.test');
    assert.deepEqual(user.profiles, ['adult']);
    assert.ok(!JSON.stringify(user).includes('scrypt'), 'never the password hash');
  });

  it('GET /users2/{email} returns every user with it; none is an empty list', async () => {
    const response = await f.call('GET', '/users2/usr-1@example.test', { key: f.operatorKey });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(
      response.json().map((user: { accountNumber: string }) => user.accountNumber),
      ['usr-1', 'usr-2'],
    );
    const none = await f.call('GET', '/users2/nobody@example.test', { key: f.operatorKey });
    assert.equal(none.statusCode, 200);
    assert.deepEqual(none.json(), []);
  });

  it('404 USER_NOT_FOUND for an unknown e-mail; 400 for one under 3 characters', async () => {
    const response = await f.call('GET', '/users/nobody@example.test', { key: f.operatorKey });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(errorTypes(response), ['USER_NOT_FOUND']);
    const short = await f.call('GET', '/users/a@', { key: f.operatorKey });
    assert.equal(short.statusCode, 400);
    assert.deepEqual(errorTypes(short), ['VALIDATION_ERROR']);
  });

  it('a device token may not look users up by e-mail (403)', async () => {
    const tv = await f.signIn('usr-1@example.test', 'tv-1');
    for (const path of ['/users/usr-1@example.test', '/users2/usr-1@example.test']) {
      const response = await f.call('GET', path, { token: tv.accessToken });
      assert.equal(response.statusCode, 403, path);
      assert.deepEqual(errorTypes(response), ['ACCESS_DENIED']);
    }
  });

  it('GET /accounts/{n}/userHash: stable, at most 48 characters, the same as in User and in the token', async () => {
    const tv = await f.signIn('usr-1@example.test', 'tv-2');
    const first = await f.call('GET', '/accounts/usr-1/userHash', { token: tv.accessToken });
    assert.equal(first.statusCode, 200);
    const { userHash } = first.json();
    assert.ok(userHash.length > 0 && userHash.length <= 48);
    assert.match(userHash, /^[A-Za-z0-9_-]+$/);
    assert.equal(userHash, tv.userHash);
    const second = await f.call('GET', '/accounts/usr-1/userHash', { key: f.operatorKey });
    assert.deepEqual(second.json(), { userHash });
    const other = await f.call('GET', '/accounts/usr-2/userHash', { key: f.operatorKey });
    assert.notEqual(other.json().userHash, userHash);
  });

  it('the service refuses bad account numbers, duplicates and weak input', async () => {
    const accounts = f.api.accounts;
    await assert.rejects(accounts.create('usr-1'), /exists already/);
    await assert.rejects(accounts.create('bad/number'), /account number/);
    const users = f.api.users;
    await assert.rejects(
      users.create({ accountNumber: 'usr-1', email: 'usr-1@example.test', password: PASSWORD, profiles: [] }),
      /already has a user/,
    );
    await assert.rejects(
      users.create({ accountNumber: 'usr-1', email: 'not-an-email', password: PASSWORD, profiles: [] }),
      /e-mail/,
    );
    await assert.rejects(
      users.create({ accountNumber: 'usr-1', email: 'x@example.test', password: 'short', profiles: [] }),
      /password/,
    );
    await assert.rejects(
      users.create({ accountNumber: 'ghost', email: 'x@example.test', password: PASSWORD, profiles: [] }),
      /no account/,
    );
  });
});
