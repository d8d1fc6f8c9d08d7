import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, errorTypes, PASSWORD } from './accounts-fixtures.ts';

/** A 254-character e-mail (RFC 5321's longest) whose local part percent-encodes to twice its length. */
const LONGEST_EMAIL = `${'x+'.repeat(32)}@${'d'.repeat(181)}.example`;

describe('client-api long path parameters (GET /users/{email})', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture();
    await f.account('long-1');
    await f.api.users.create({
      accountNumber: 'long-1',
      email: LONGEST_EMAIL,
      password: PASSWORD,
      profiles: [],
    });
  });
  after(() => f.close());

  it('a 254-character e-mail, 320 characters percent-encoded, is found (200)', async () => {
    assert.equal(LONGEST_EMAIL.length, 254);
    const segment = encodeURIComponent(LONGEST_EMAIL);
    assert.ok(segment.length >= 300, `${segment.length}`);
    const response = await f.call('GET', `/users/${segment}`, { key: f.operatorKey });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().email, LONGEST_EMAIL);
    assert.equal(response.json().accountNumber, 'long-1');
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
});
