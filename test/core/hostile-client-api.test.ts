import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AccountTables } from '../../src/client-api/tables.ts';
import {
  type AccountsFixture,
  accountsFixture,
  BASE,
  PASSWORD,
  type SignedIn,
} from '../client-api/accounts-fixtures.ts';
import { type FormatName, formatNames } from '../client-api/media-formats.ts';
import {
  type Answer,
  casesOf,
  type HostileCase,
  operationsOf,
  serverFaults,
} from '../helpers/hostile-inputs.ts';
import { hostileBody } from '../helpers/hostile-media.ts';

/** No limit stands between a hostile value and the code it is meant to reach. */
const UNLIMITED = {
  CLIENT_API_DEVICE_REQUEST_LIMIT: '0',
  BACKOFFICE_KEY_REQUEST_LIMIT: '0',
  LOGIN_MAX_FAILURES: '100000',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
  REGISTRATION_RATE_LIMIT: '100000',
  DEVICE_GRANT_MAX_PENDING_PER_ADDRESS: '100000',
  USER_CODE_MAX_FAILURES: '100000',
  USER_CODE_MAX_FAILURES_PER_ADDRESS: '100000',
};

/** The values whose bytes differ by media type: text BSON and XML cannot carry, numbers beyond a double. */
const ENCODED = new Set(['NUL', 'lone surrogate', '-2^63', '2^53+1']);

describe('client-api: no hostile value in any operation answers 5xx (JSON, BSON, UBJSON, XML)', () => {
  let fx: AccountsFixture;
  let user: { accountNumber: string; email: string; userHash: string };
  let tv: SignedIn;
  let cases: HostileCase[] = [];

  before(async () => {
    fx = await accountsFixture(UNLIMITED);
    user = await fx.account('acc-hostile');
    // A stored hash carries its own scrypt cost: a cheap one keeps the walk's many sign-ins fast.
    const salt = randomBytes(16);
    const key = scryptSync(PASSWORD, salt, 32, { N: 16, r: 1, p: 1 });
    await fx.core.database.db
      .withTables<AccountTables>()
      .updateTable('users')
      .set({
        password_hash: ['scrypt', 16, 1, 1, salt.toString('base64url'), key.toString('base64url')].join('$'),
      })
      .where('email', '=', user.email)
      .execute();
    tv = await fx.signIn(user.email, 'tv-1');
    const document = (await fx.app.inject({ url: `${BASE}/swagger.json` })).json();
    // Valid values by name, so a hostile value in one place meets real ones everywhere else.
    const known: Record<string, unknown> = {
      accountNumber: user.accountNumber,
      userHash: user.userHash,
      deviceClass: 'smarttv',
      deviceId: 'tv-1',
      mediaPlayerId: 'tv-1',
      email: user.email,
      username: user.email,
      password: PASSWORD,
      platformUserId: tv.platformUserId,
      userId: tv.platformUserId,
      contentId: 1,
      offset: 5,
      client_id: 'smarttv',
      device_id: 'tv-1',
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    };
    cases = operationsOf(document).flatMap((operation) => casesOf(document, operation, known, BASE));
  });
  after(() => fx.close());

  /** The credentials an operation's security takes, the operator key first. */
  const credentials = (hostile: HostileCase): Record<string, string> => {
    const { security, path } = hostile.operation;
    if (security.includes('ApiKey')) return { 'x-api-key': fx.operatorKey };
    if (security.includes('BasicAuth')) {
      return { authorization: `Basic ${Buffer.from(`${user.email}:${PASSWORD}`).toString('base64')}` };
    }
    if (!security.includes('BearerToken')) return {};
    // The token operations take the refresh token.
    const refresh = path.endsWith('/tokens') || path.endsWith('/userInfo');
    return { authorization: `Bearer ${refresh ? tv.refreshToken : tv.accessToken}` };
  };

  const send = async (hostile: HostileCase, type: FormatName): Promise<Answer> => {
    const headers: Record<string, string> = { accept: type, ...credentials(hostile) };
    let payload: Buffer | string | undefined;
    if (hostile.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = hostile.form;
    } else if (hostile.operation.body !== undefined) {
      headers['content-type'] = type;
      payload = hostileBody(type, hostile.body);
    }
    const method = hostile.operation.method as 'GET';
    const response = await fx.app.inject({ method, url: hostile.url, headers, payload });
    return { statusCode: response.statusCode, body: response.body };
  };

  it('walks every operation with every hostile value in every parameter and body field', async () => {
    assert.ok(cases.length > 1000, `${cases.length} cases`);
    const sent: Array<{ hostile: HostileCase; answer: Answer; via: string }> = [];
    for (const [index, hostile] of cases.entries()) {
      // A value each media type writes its own way goes in a body in all four; any other case (and every
      // parameter's answer) in each type in turn: the walk stays within its time on a busy machine.
      const inBody = hostile.operation.body !== undefined && hostile.form === undefined;
      const types =
        inBody && ENCODED.has(hostile.value.label) ? formatNames : [formatNames[index % 4] as FormatName];
      for (const type of types) {
        let answer = await send(hostile, type);
        // A case that closed the device's session (a sign-out) must not starve the ones after it.
        if (answer.statusCode === 401 && hostile.operation.security.includes('BearerToken')) {
          tv = await fx.signIn(user.email, 'tv-1');
          answer = await send(hostile, type);
        }
        sent.push({ hostile, answer, via: type });
      }
    }
    assert.deepEqual(serverFaults(sent), []);
  });
});
