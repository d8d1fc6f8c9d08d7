import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { composeClientApi } from '../../src/client-api/composition.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';
import { errorOf, type FormatName, readBody, writeBody } from './media-formats.ts';

/**
 * A new user's journey over real HTTP, in each media type: an operator creates an account and a user
 * with the CLI; the user signs in on a TV and a phone, lists, reads, renames, disables and enables
 * devices, meets the delete cool-down, closes the TV's sessions, refreshes tokens and reads the
 * userHash; a token of another account is refused on every account route.
 */

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** XML answers as xml2js reads them: the root element, with one-element lists not yet arrays. */
const list = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === undefined ? [] : [value];

function record(type: FormatName, body: unknown, root: string): Record<string, unknown> {
  const value = type === 'application/xml' ? (body as Record<string, unknown>)[root] : body;
  return value as Record<string, unknown>;
}

function records(
  type: FormatName,
  body: unknown,
  root: string,
  item: string,
): Array<Record<string, unknown>> {
  if (type === 'application/xml') {
    const wrapper = (body as Record<string, Record<string, unknown> | string>)[root];
    return list(typeof wrapper === 'object' ? wrapper[item] : undefined) as Array<Record<string, unknown>>;
  }
  // BSON lists come as documents keyed "0", "1", …
  return (Array.isArray(body) ? body : Object.values(body as object)) as Array<Record<string, unknown>>;
}

/** XML carries every leaf as text. */
const text = (value: unknown) => String(value);

/** The journey in one media type; one test file per type keeps each file within the test timeout. */
export function journeyIn(type: FormatName): void {
  describe(`client-api journey in ${type}`, () => {
    let core: TestCore;
    let url: string;
    let close: () => Promise<void>;
    const suffix = type.split('/')[1] ?? type;
    const accountNumber = `journey-${suffix}`;
    const email = `viewer-${suffix}@example.test`;
    const password = 'a long enough secret';
    let foreignToken: string;

    async function call(
      type: FormatName,
      method: string,
      path: string,
      options: { token?: string; body?: unknown; xmlRoot?: string } = {},
    ): Promise<Answer> {
      const headers: Record<string, string> = { accept: type };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let payload: Buffer | undefined;
      if (options.body !== undefined) {
        headers['content-type'] = type;
        payload = writeBody(type, options.body, options.xmlRoot);
      }
      // Node accepts a Buffer as a fetch body; the DOM typing wants an ArrayBuffer-backed view.
      const body = payload as unknown as BodyInit | undefined;
      const response = await fetch(`${url}/api/v1${path}`, { method, headers, body });
      const raw = Buffer.from(await response.arrayBuffer());
      const asInjected = {
        headers: { 'content-type': response.headers.get('content-type') ?? '' },
        rawPayload: raw,
        body: raw.toString('utf8'),
      } as unknown as LightMyRequestResponse;
      return { status: response.status, headers: response.headers, body: await readBody(asInjected) };
    }

    async function signIn(type: FormatName, deviceId: string, deviceName: string, who = email) {
      const response = await call(type, 'POST', '/auth/smarttv/users/authenticate', {
        body: { username: who, password, deviceId, deviceName },
        xmlRoot: 'Credential',
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const answer = record(type, response.body, 'UserResponse');
      const tokens = answer.tokens as Record<string, unknown>;
      return { accessToken: text(tokens.accessToken), refreshToken: text(tokens.refreshToken) };
    }

    before(async () => {
      const started = await startTestFamily(['client-api']);
      core = started.core;
      url = started.family.url('client-api');
      close = started.close;
      const account = await runCli(['account', 'create', '--account-number', accountNumber], core.env);
      assert.equal(account.code, 0, account.stderr);
      assert.equal(JSON.parse(account.stdout).accountNumber, accountNumber);
      const user = await runCli(
        [
          'user',
          'create',
          '--account',
          accountNumber,
          '--email',
          email,
          '--password-stdin',
          '--profile',
          'adult',
        ],
        core.env,
        password,
      );
      assert.equal(user.code, 0, user.stderr);
      const printed = JSON.parse(user.stdout);
      assert.equal(printed.email, email);
      assert.deepEqual(printed.profiles, ['adult']);
      assert.ok(!user.stdout.includes(password), 'the password is never printed');
      // The other account is an operator's too, made in-process (the CLI is exercised above).
      const { accounts, users } = composeClientApi(core);
      await accounts.create('journey-other');
      await users.create({
        accountNumber: 'journey-other',
        email: 'other@example.test',
        password,
        profiles: [],
      });
      foreignToken = (await signIn('application/json', 'other-tv', 'Other TV', 'other@example.test'))
        .accessToken;
    });
    after(() => close());
    it(`works end to end in ${type}`, async () => {
      const tvId = `tv-${suffix}`;
      const phoneId = `phone-${suffix}`;
      const tv = await signIn(type, tvId, 'Living room');
      let phone = await signIn(type, phoneId, 'Phone');

      const listed = await call(type, 'GET', `/accounts/${accountNumber}/devices`, { token: tv.accessToken });
      assert.equal(listed.status, 200);
      const ids = records(type, listed.body, 'ArrayOfDeviceBase', 'DeviceBase').map((d) =>
        text(d.mediaPlayerId),
      );
      assert.ok(ids.includes(tvId) && ids.includes(phoneId), ids.join());

      const one = await call(type, 'GET', `/accounts/${accountNumber}/devices/${tvId}`, {
        token: tv.accessToken,
      });
      assert.equal(one.status, 200);
      const device = record(type, one.body, 'DeviceBase');
      assert.equal(text(device.name), 'Living room');
      assert.equal(text(device.enabled), 'true');

      const renamed = await call(type, 'PUT', `/accounts/${accountNumber}/devices/${tvId}/name`, {
        token: tv.accessToken,
        body: 'Den',
        xmlRoot: 'string',
      });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.equal(text(record(type, renamed.body, 'DeviceName').name), 'Den');
      const tooLong = await call(type, 'PUT', `/accounts/${accountNumber}/devices/${tvId}/name`, {
        token: tv.accessToken,
        body: 'x'.repeat(65),
        xmlRoot: 'string',
      });
      assert.equal(tooLong.status, 400);
      assert.deepEqual(errorOf(type, tooLong.body), { code: 'BAD_REQUEST', type: 'DEVICE_NAME_TOO_LONG' });

      const disabled = await call(
        type,
        'PUT',
        `/accounts/${accountNumber}/devices/${phoneId}/enabled/false`,
        {
          token: tv.accessToken,
        },
      );
      assert.equal(disabled.status, 204);
      const phoneRefused = await call(type, 'GET', `/accounts/${accountNumber}/devices`, {
        token: phone.accessToken,
      });
      assert.equal(phoneRefused.status, 401);
      const enabled = await call(type, 'PUT', `/accounts/${accountNumber}/devices/${phoneId}/enabled/true`, {
        token: tv.accessToken,
      });
      assert.equal(enabled.status, 204);
      phone = await signIn(type, phoneId, 'Phone');

      const early = await call(type, 'DELETE', `/accounts/${accountNumber}/devices/${tvId}`, {
        token: tv.accessToken,
      });
      assert.equal(early.status, 409);
      assert.ok(Number(early.headers.get('retry-after')) > 0);
      assert.deepEqual(errorOf(type, early.body), { code: 'CONFLICT', type: 'DEVICE_DELETE_COOLDOWN' });

      const closed = await call(type, 'DELETE', `/accounts/${accountNumber}/devices/${tvId}/sessions`, {
        token: tv.accessToken,
      });
      assert.equal(closed.status, 204);
      const oldToken = await call(type, 'GET', `/accounts/${accountNumber}/devices`, {
        token: tv.accessToken,
      });
      assert.equal(oldToken.status, 401);
      assert.deepEqual(errorOf(type, oldToken.body), { code: 'UNAUTHORIZED', type: 'TOKEN_INVALID' });
      const again = await call(type, 'DELETE', `/accounts/${accountNumber}/devices/${tvId}/sessions`, {
        token: phone.accessToken,
      });
      assert.equal(again.status, 404);
      assert.deepEqual(errorOf(type, again.body), { code: 'NOT_FOUND', type: 'SESSION_NOT_FOUND' });

      const refreshed = await call(type, 'GET', `/auth/devices/smarttv/${phoneId}/tokens?tier=Production`, {
        token: phone.refreshToken,
      });
      assert.equal(refreshed.status, 200);
      const tokens = record(type, refreshed.body, 'TokensResponse');
      assert.equal(text(tokens.tier), 'Production');
      assert.notEqual(text(tokens.refreshToken), phone.refreshToken);
      const fresh = await call(type, 'GET', `/accounts/${accountNumber}/userHash`, {
        token: text(tokens.accessToken),
      });
      assert.equal(fresh.status, 200);
      const userHash = text(record(type, fresh.body, 'UserHash').userHash);
      assert.ok(userHash.length > 0 && userHash.length <= 48);

      for (const [method, path] of [
        ['GET', `/accounts/${accountNumber}/devices`],
        ['GET', `/accounts/${accountNumber}/devices/${phoneId}`],
        ['PUT', `/accounts/${accountNumber}/devices/${phoneId}/enabled/false`],
        ['DELETE', `/accounts/${accountNumber}/sessions`],
        ['GET', `/accounts/${accountNumber}/userHash`],
        ['GET', `/accounts/${accountNumber}/devices/playing`],
      ] as const) {
        const refused = await call(type, method, path, { token: foreignToken });
        assert.equal(refused.status, 403, `${method} ${path}`);
        assert.deepEqual(errorOf(type, refused.body), { code: 'FORBIDDEN', type: 'ACCESS_DENIED' });
      }
    });
  });
}
