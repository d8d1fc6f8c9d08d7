import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { signInOnChatPage, speakerOf } from '../helpers/chat-page-person.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { HOUSEHOLD_PASSWORD, householdAccount } from '../helpers/household.ts';
import { errorOf, formatNames, readBody } from './media-formats.ts';

const BASE = '/api/v1';
const CURRENT = (accountNumber: string) => `/accounts/${accountNumber}/sessions/current`;

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** The first error's type, when the body is a JSON error. */
  type?: string;
}

/**
 * DELETE /accounts/{accountNumber}/sessions/current, over real HTTP: a device's token closes its own session
 * and no other (not even another session of the same device); the assistant's delegated token closes the
 * session its `sid` names (a chat page sign-in's), with `sessions:write`; credentials resting on no session
 * are 409 NO_CURRENT_SESSION; another account's token is 403; in each of the four media types.
 */
describe('client-api: closing the session the credential rests on', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let clientApi: string;
  let assistantAuth: string;
  let runtimeKey: string;
  let operatorKey: string;

  async function call(
    method: string,
    path: string,
    auth: { token?: string; key?: string } = {},
    accept = 'application/json',
  ): Promise<Answer> {
    const response = await fetch(`${clientApi}${path}`, {
      method,
      headers: {
        accept,
        ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
        ...(auth.key ? { 'x-api-key': auth.key } : {}),
      },
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const json = response.headers.get('content-type')?.startsWith('application/json');
    const body = json && bytes.length > 0 ? (JSON.parse(bytes.toString()) as Record<string, unknown>) : {};
    const type = (body.errors as Array<{ type: string }> | undefined)?.[0]?.type;
    return { status: response.status, headers: response.headers, bytes, ...(type ? { type } : {}) };
  }

  /** A device's sign-in through client-api's route: its access and refresh tokens. */
  async function signIn(email: string, deviceId: string) {
    const response = await fetch(`${clientApi}/auth/smarttv/users/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: email, password: HOUSEHOLD_PASSWORD, deviceId }),
    });
    const body = (await response.json()) as { tokens: { accessToken: string; refreshToken: string } };
    assert.equal(response.status, 200, JSON.stringify(body));
    return body.tokens;
  }

  const refresh = async (deviceId: string, refreshToken: string) => {
    const answer = await fetch(`${clientApi}/auth/devices/smarttv/${deviceId}/tokens`, {
      headers: { authorization: `Bearer ${refreshToken}`, accept: 'application/json' },
    });
    await answer.arrayBuffer();
    return answer.status;
  };
  const devices = async (accountNumber: string, token: string) =>
    (await call('GET', `/accounts/${accountNumber}/devices`, { token })).status;

  async function delegation(assistantId: string, scope?: string[]) {
    const response = await fetch(`${assistantAuth}/users/${assistantId}/delegations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': runtimeKey },
      body: JSON.stringify({ audience: 'client-api', ...(scope ? { scope } : {}) }),
    });
    const body = (await response.json()) as { token: string };
    assert.equal(response.status, 201, JSON.stringify(body));
    return body.token;
  }

  /** An account whose person is signed in on the chat page: the assistant user of that sign-in. */
  async function chatSignIn(email: string) {
    const chat = await signInOnChatPage(assistantAuth, email);
    return speakerOf(core, chat.conversationId);
  }

  /** The hash of each account's user, by account number (for the playback routes). */
  const userHashes = new Map<string, string>();
  const account = async (accountNumber: string) => {
    const email = `${accountNumber.toLowerCase()}@example.test`;
    userHashes.set(accountNumber, await householdAccount(core, { accountNumber, email }));
    return email;
  };

  before(async () => {
    ({ core, close } = await startTestFamily(['client-api', 'assistant-auth'], {
      CHAT_PAGE: 'on',
      SINTONIA_DEMO: '0',
    }));
    clientApi = `${core.serviceUrl('client-api')}${BASE}`;
    assistantAuth = core.serviceUrl('assistant-auth');
    runtimeKey = (await core.apiKeys.create('runtime', 'assistant runtime')).key;
    operatorKey = (await core.apiKeys.create('backoffice', 'operator')).key;
  });
  after(() => close());

  describe('happy', () => {
    it("a device's token closes its own session only: its tokens are refused, the same device's other session stays open", async () => {
      const email = await account('CUR-1001');
      const first = await signIn(email, 'tv-1');
      const second = await signIn(email, 'tv-1');
      const closed = await call('DELETE', CURRENT('CUR-1001'), { token: first.accessToken });
      assert.equal(closed.status, 204);
      assert.equal(closed.bytes.length, 0);
      const refused = await call('GET', '/accounts/CUR-1001/devices', { token: first.accessToken });
      assert.equal(refused.status, 401);
      assert.equal(refused.type, 'TOKEN_INVALID');
      assert.equal(await refresh('tv-1', first.refreshToken), 401, 'its refresh token is refused too');
      assert.equal(await devices('CUR-1001', second.accessToken), 200, 'the other session of tv-1 stays');
      assert.equal(await refresh('tv-1', second.refreshToken), 200);
      const again = await call('DELETE', CURRENT('CUR-1001'), { token: first.accessToken });
      assert.equal(again.status, 401, 'a closed session’s token cannot close anything');
    });

    it("the assistant's token bound to a chat page sign-in closes that sign-in's session; the other browser's stands", async () => {
      const email = await account('CUR-2001');
      const tv = await signIn(email, 'tv-1');
      const browserOne = await chatSignIn(email);
      const browserTwo = await chatSignIn(email);
      const one = await delegation(browserOne, ['sessions:write', 'devices:read']);
      const two = await delegation(browserTwo, ['devices:read']);
      const closed = await call('DELETE', CURRENT('CUR-2001'), { token: one });
      assert.equal(closed.status, 204);
      assert.equal(await devices('CUR-2001', one), 401, 'its delegated token rested on that session');
      assert.equal(await devices('CUR-2001', two), 200, 'the other browser’s sign-in stands');
      assert.equal(await devices('CUR-2001', tv.accessToken), 200, 'the TV is untouched');
      const signedIn = await call('GET', '/accounts/CUR-2001/devices/signed-in', { key: operatorKey });
      assert.deepEqual(JSON.parse(signedIn.bytes.toString()), ['chat-page', 'tv-1']);
      const audit = await core.database.db
        .selectFrom('audit_log')
        .select('action')
        .where('subject', '=', 'CUR-2001')
        .where('action', 'like', 'delegated:AccountManagement_SignOutCurrentSessionAsync%')
        .execute();
      assert.deepEqual(
        audit.map((row) => row.action),
        ['delegated:AccountManagement_SignOutCurrentSessionAsync 204'],
      );
    });

    it('what a session close ends follows: the device’s stream ends with its last session', async () => {
      const email = await account('CUR-6001');
      const first = await signIn(email, 'tv-1');
      const second = await signIn(email, 'tv-1');
      const userHash = userHashes.get('CUR-6001');
      const started = await call('PUT', `/smarttv/tv-1/users/${userHash}/playback/77?offset=3`, {
        token: first.accessToken,
      });
      assert.equal(started.status, 200);
      const playing = async () => {
        const watching = await call('GET', '/accounts/CUR-6001/playback', { key: operatorKey });
        assert.equal(watching.status, 200);
        const body = JSON.parse(watching.bytes.toString()) as { streams: Array<{ deviceId: string }> };
        return body.streams.map((stream) => stream.deviceId);
      };
      assert.deepEqual(await playing(), ['tv-1']);
      assert.equal((await call('DELETE', CURRENT('CUR-6001'), { token: first.accessToken })).status, 204);
      assert.deepEqual(await playing(), ['tv-1'], 'tv-1 is still signed in (its other session)');
      assert.equal((await call('DELETE', CURRENT('CUR-6001'), { token: second.accessToken })).status, 204);
      assert.deepEqual(await playing(), [], 'its last session closed: its stream is over');
    });
  });

  describe('errors', () => {
    it('credentials resting on no session are 409 NO_CURRENT_SESSION: an operator key, a delegated token without sid', async () => {
      const email = await account('CUR-3001');
      const tv = await signIn(email, 'tv-1');
      const operator = await call('DELETE', CURRENT('CUR-3001'), { key: operatorKey });
      assert.equal(operator.status, 409);
      assert.equal(operator.type, 'NO_CURRENT_SESSION');
      // A link the gateway made rests on no sign-in: its tokens carry no sid.
      const { data } = makeCallbackParam(core, {
        identity: randomUUID(),
        channel: 'web',
        accountNumber: 'CUR-3001',
      });
      const linked = await fetch(
        `${assistantAuth}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
      );
      assert.equal(linked.status, 201);
      const { assistantId } = (await linked.json()) as { assistantId: string };
      const delegated = await call('DELETE', CURRENT('CUR-3001'), {
        token: await delegation(assistantId, ['sessions:write']),
      });
      assert.equal(delegated.status, 409);
      assert.equal(delegated.type, 'NO_CURRENT_SESSION');
      assert.equal(await devices('CUR-3001', tv.accessToken), 200, 'nothing was closed');
    });

    it('the document lists the operation: 204, its 409 type, sessions:write, the four media types', async () => {
      const response = await fetch(`${clientApi}/swagger.json`);
      const document = (await response.json()) as {
        paths: Record<string, Record<string, Record<string, unknown>>>;
        produces: string[];
      };
      const operation = document.paths['/accounts/{accountNumber}/sessions/current']?.delete;
      assert.ok(operation);
      assert.equal(operation.operationId, 'AccountManagement_SignOutCurrentSessionAsync');
      assert.equal(operation['x-delegated-scope'], 'sessions:write');
      const types = operation['x-error-types'] as Record<string, string[]>;
      assert.deepEqual(types['409'], ['NO_CURRENT_SESSION']);
      assert.ok(types['404']?.includes('SESSION_NOT_FOUND'));
      assert.ok(Object.keys(operation.responses as object).includes('204'));
      // The four media types are the document's, for every operation (none overrides them).
      assert.equal(operation.produces, undefined);
      assert.deepEqual(document.produces, formatNames);
    });
  });

  describe('security', () => {
    it("another account's token, device or delegated, is 403 and closes nothing; no credentials is 401", async () => {
      const mine = await account('CUR-4001');
      const theirs = await account('CUR-4002');
      const myTv = await signIn(mine, 'tv-1');
      const theirTv = await signIn(theirs, 'tv-1');
      const foreign = await call('DELETE', CURRENT('CUR-4002'), { token: myTv.accessToken });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.type, 'ACCESS_DENIED');
      const delegated = await delegation(await chatSignIn(mine), ['sessions:write', 'devices:read']);
      const foreignDelegated = await call('DELETE', CURRENT('CUR-4002'), { token: delegated });
      assert.equal(foreignDelegated.status, 403);
      assert.equal(foreignDelegated.type, 'ACCESS_DENIED');
      assert.equal(await devices('CUR-4001', myTv.accessToken), 200);
      assert.equal(await devices('CUR-4001', delegated), 200, 'the sign-in it rests on is still open');
      assert.equal(await devices('CUR-4002', theirTv.accessToken), 200);
      const anonymous = await call('DELETE', CURRENT('CUR-4002'));
      assert.equal(anonymous.status, 401);
      assert.match(String(anonymous.headers.get('www-authenticate')), /^Bearer /);
    });

    it('a delegated token without sessions:write is 403, and its session stays open', async () => {
      const email = await account('CUR-5001');
      const readOnly = await delegation(await chatSignIn(email), ['devices:read']);
      const refused = await call('DELETE', CURRENT('CUR-5001'), { token: readOnly });
      assert.equal(refused.status, 403);
      assert.equal(refused.type, 'ACCESS_DENIED');
      assert.equal(await devices('CUR-5001', readOnly), 200);
    });
  });

  describe('media types', () => {
    for (const type of formatNames) {
      it(`${type}: 204 without a body, and 409 NO_CURRENT_SESSION written in it`, async () => {
        const email = await account(`CUR-M-${type.split('/')[1]}`);
        const accountNumber = `CUR-M-${type.split('/')[1]}`;
        const tv = await signIn(email, 'tv-1');
        const closed = await call('DELETE', CURRENT(accountNumber), { token: tv.accessToken }, type);
        assert.equal(closed.status, 204);
        assert.equal(closed.bytes.length, 0);
        assert.equal(closed.headers.get('content-type'), null);
        const refused = await call('DELETE', CURRENT(accountNumber), { key: operatorKey }, type);
        assert.equal(refused.status, 409);
        const contentType = refused.headers.get('content-type') ?? '';
        assert.ok(contentType.startsWith(type), contentType);
        // The independent readers of media-formats.ts take a response's type, bytes and text.
        const body = await readBody({
          headers: { 'content-type': contentType },
          rawPayload: refused.bytes,
          body: refused.bytes.toString(),
        } as unknown as LightMyRequestResponse);
        assert.equal(errorOf(type, body).type, 'NO_CURRENT_SESSION');
      });
    }
  });
});
