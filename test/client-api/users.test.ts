import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertFields } from '../helpers/fields.ts';
import { type AccountsFixture, accountsFixture, errorTypes, PASSWORD } from './accounts-fixtures.ts';

/** The fields of a User, no more, no fewer. */
const USER_FIELDS = ['accountNumber', 'email', 'platformUserId', 'profiles', 'subscriptions', 'userHash'];

/** A 254-character e-mail (RFC 5321's longest) whose local part percent-encodes to twice its length. */
const LONGEST_EMAIL = `${'x+'.repeat(32)}@${'d'.repeat(181)}.example`;

/**
 * Users: looking one up by e-mail (GET /users/{email}, GET /users2/{email}, operators only, up to the
 * longest e-mail as a path parameter) and an account's userHash (GET /accounts/{accountNumber}/userHash).
 * Access by credentials is also checked over every operation (auth-access.test.ts).
 */
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
    await f.account('long-1');
    await f.api.users.create({
      accountNumber: 'long-1',
      email: LONGEST_EMAIL,
      password: PASSWORD,
      profiles: [],
    });
  });
  after(() => f.close());

  describe('happy', () => {
    it('GET /users/{email} returns the oldest user with it, case-insensitively (operators)', async () => {
      const response = await f.call('GET', '/users/Usr-1@example.test', { key: f.operatorKey });
      assert.equal(response.statusCode, 200);
      const user = response.json();
      assertFields(user, USER_FIELDS);
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

    it('a 254-character e-mail, 320 characters percent-encoded, is found (200)', async () => {
      assert.equal(LONGEST_EMAIL.length, 254);
      const segment = encodeURIComponent(LONGEST_EMAIL);
      assert.ok(segment.length >= 300, `${segment.length}`);
      const response = await f.call('GET', `/users/${segment}`, { key: f.operatorKey });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().email, LONGEST_EMAIL);
      assert.equal(response.json().accountNumber, 'long-1');
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
  });

  describe('errors', () => {
    it('404 USER_NOT_FOUND for an unknown e-mail; 400 for one under 3 characters', async () => {
      const response = await f.call('GET', '/users/nobody@example.test', { key: f.operatorKey });
      assert.equal(response.statusCode, 404);
      assert.deepEqual(errorTypes(response), ['USER_NOT_FOUND']);
      const short = await f.call('GET', '/users/a@', { key: f.operatorKey });
      assert.equal(short.statusCode, 400);
      assert.deepEqual(errorTypes(short), ['VALIDATION_ERROR']);
    });

    it('an unknown e-mail of 300 path characters is 404 USER_NOT_FOUND', async () => {
      const segment = encodeURIComponent(`y${LONGEST_EMAIL.slice(1)}`);
      assert.ok(segment.length >= 300);
      const response = await f.call('GET', `/users/${segment}`, { key: f.operatorKey });
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().code, 'NOT_FOUND');
      assert.deepEqual(errorTypes(response), ['USER_NOT_FOUND']);
    });

    it('a 300-character e-mail is over the route’s 254: 400 VALIDATION_ERROR, not 414', async () => {
      const email = `${'a'.repeat(287)}@example.test`;
      assert.equal(email.length, 300);
      const response = await f.call('GET', `/users/${email}`, { key: f.operatorKey });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().code, 'BAD_REQUEST');
      assert.deepEqual(errorTypes(response), ['VALIDATION_ERROR']);
    });

    it('a 5000-character path parameter is 414 in the family body, with a request id', async () => {
      const email = `${'a'.repeat(4987)}@example.test`;
      assert.equal(email.length, 5000);
      for (const path of [`/users/${email}`, `/users2/${email}`]) {
        const response = await f.call('GET', path, { key: f.operatorKey });
        assert.equal(response.statusCode, 414, path);
        assert.match(String(response.headers['content-type']), /^application\/json/);
        assert.ok(response.headers['x-request-id'], 'x-request-id');
        assert.deepEqual(response.json(), {
          code: 'URI_TOO_LONG',
          message: 'A path parameter of the request is too long.',
          errors: [{ type: 'PATH_TOO_LONG', message: 'A path parameter of the request is too long.' }],
        });
      }
      // Without credentials too: the router refuses it before any guard runs.
      const anonymous = await f.call('GET', `/users/${email}`);
      assert.equal(anonymous.statusCode, 414);
      assert.deepEqual(errorTypes(anonymous), ['PATH_TOO_LONG']);
    });

    it('a path parameter with broken percent-encoding is 400 MALFORMED_PATH in the family body', async () => {
      const response = await f.call('GET', '/users/a%E0%A4%A@example.test', { key: f.operatorKey });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().code, 'BAD_REQUEST');
      assert.deepEqual(errorTypes(response), ['MALFORMED_PATH']);
    });

    it('the service refuses bad account numbers, duplicates and weak input', async () => {
      const accounts = f.api.accounts;
      await assert.rejects(accounts.create('usr-1'), /exists already/);
      await assert.rejects(accounts.create('bad/number'), /account number/);
      const users = f.api.users;
      await assert.rejects(
        users.create({
          accountNumber: 'usr-1',
          email: 'usr-1@example.test',
          password: PASSWORD,
          profiles: [],
        }),
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

  describe('security', () => {
    it('a device token may not look users up by e-mail (403)', async () => {
      const tv = await f.signIn('usr-1@example.test', 'tv-1');
      for (const path of ['/users/usr-1@example.test', '/users2/usr-1@example.test']) {
        const response = await f.call('GET', path, { token: tv.accessToken });
        assert.equal(response.statusCode, 403, path);
        assert.deepEqual(errorTypes(response), ['ACCESS_DENIED']);
      }
    });
  });
});
