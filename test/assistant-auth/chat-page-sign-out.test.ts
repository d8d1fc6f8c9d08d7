import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  channelKeys,
  channelSecret,
  createChannelCredentials,
} from '../../src/assistant-auth/directline/credentials.ts';
import type { DirectLineTables } from '../../src/assistant-auth/directline/tables.ts';
import type { AccountTables } from '../../src/client-api/tables.ts';
import {
  askDelegation,
  devicesStatus,
  refreshToken,
  type SignedInChat,
  signInOnChatPage,
  speakerOf,
} from '../helpers/chat-page-person.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';

const BASE = '/api/v1';

/**
 * POST /chat/sign-out: the page ends its own sign-in with its conversation token. The person signed in in
 * two browsers (both as the device `chat-page` of their account) signs out of one: that sign-in's session
 * is closed at client-api and its assistant user removed, so its conversation speaks for nobody; the other
 * browser's link and session stand. Anonymous, missing, foreign and expired tokens are refused; a second
 * click is no error; client-api out of reach is 502 with nothing removed.
 */
describe('the chat page’s sign-out', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let assistantAuth: string;
  let clientApi: string;
  let runtimeKey: string;
  let operatorKey: string;

  before(async () => {
    ({ core, close } = await startTestFamily(['client-api', 'assistant-auth'], {
      CHAT_PAGE: 'on',
      SINTONIA_DEMO: '0',
    }));
    assistantAuth = core.serviceUrl('assistant-auth');
    clientApi = `${core.serviceUrl('client-api')}${BASE}`;
    runtimeKey = (await core.apiKeys.create('runtime', 'assistant runtime')).key;
    operatorKey = (await core.apiKeys.create('backoffice', 'operator')).key;
  });
  after(() => close());

  const signOut = async (authorization?: string) => {
    const response = await fetch(`${assistantAuth}/chat/sign-out`, {
      method: 'POST',
      headers: authorization === undefined ? {} : { authorization },
    });
    const text = await response.text();
    const body = (text ? JSON.parse(text) : {}) as { errors?: Array<{ type: string }> };
    return { status: response.status, headers: response.headers, text, type: body.errors?.[0]?.type };
  };
  const bearer = (chat: SignedInChat) => `Bearer ${chat.token}`;

  /** An account with a TV, its person signed in on the chat page in `browsers` browsers. */
  async function person(accountNumber: string, browsers: number) {
    const email = `${accountNumber.toLowerCase()}@example.test`;
    const tv = await signedInHousehold(core, clientApi, {
      accountNumber,
      email,
      devices: [[`${accountNumber}-tv`, 'Living room']],
    });
    const chats: Array<SignedInChat & { assistantId: string }> = [];
    for (let index = 0; index < browsers; index++) {
      const chat = await signInOnChatPage(assistantAuth, email);
      chats.push({ ...chat, assistantId: await speakerOf(core, chat.conversationId) });
    }
    return { email, tv: tv[`${accountNumber}-tv`] ?? '', chats };
  }

  /** The account's chat page sessions (device `chat-page`), open or not, as client-api stores them. */
  async function chatPageSessions(accountNumber: string) {
    const rows = await core.database.db
      .withTables<AccountTables>()
      .selectFrom('sessions')
      .select(['closed_at'])
      .where('account_number', '=', accountNumber)
      .where('device_id', '=', 'chat-page')
      .execute();
    return { open: rows.filter((row) => row.closed_at === null).length, all: rows.length };
  }

  describe('happy', () => {
    it('signs out one of two browsers: its session closes, its conversation speaks for nobody; the other stands', async () => {
      const { tv, chats } = await person('SOUT-1001', 2);
      const [one, two] = chats;
      assert.ok(one && two && one.assistantId !== two.assistantId, 'one assistant user per sign-in');
      const oneDelegated = (await askDelegation(assistantAuth, runtimeKey, one.assistantId)).token ?? '';
      assert.equal(await devicesStatus(clientApi, 'SOUT-1001', oneDelegated), 200);
      assert.deepEqual(await chatPageSessions('SOUT-1001'), { open: 2, all: 2 });

      const out = await signOut(bearer(one));
      assert.equal(out.status, 204, out.text);
      assert.equal(out.text, '');
      assert.equal(out.headers.get('cache-control'), 'no-store');

      assert.deepEqual(await chatPageSessions('SOUT-1001'), { open: 1, all: 2 }, 'that session only');
      assert.equal(await devicesStatus(clientApi, 'SOUT-1001', oneDelegated), 401, 'its delegation ends');
      const row = await core.database.db
        .withTables<DirectLineTables>()
        .selectFrom('directline_conversations')
        .select('assistant_id')
        .where('id', '=', one.conversationId)
        .executeTakeFirst();
      assert.equal(row?.assistant_id, null, 'the conversation speaks for nobody');
      const renewed = await refreshToken(assistantAuth, one.token);
      assert.equal(renewed.status, 403);
      assert.equal(renewed.type, 'DIRECTLINE_CREDENTIALS_INVALID');
      const asked = await askDelegation(assistantAuth, runtimeKey, one.assistantId);
      assert.equal(asked.status, 404);
      assert.equal(asked.type, 'USER_NOT_FOUND');

      // The other browser: its conversation renews, the assistant still acts for it.
      assert.equal((await refreshToken(assistantAuth, two.token)).status, 200);
      const twoDelegated = await askDelegation(assistantAuth, runtimeKey, two.assistantId);
      assert.equal(twoDelegated.status, 201);
      assert.equal(await devicesStatus(clientApi, 'SOUT-1001', twoDelegated.token ?? ''), 200);
      assert.equal(await devicesStatus(clientApi, 'SOUT-1001', tv), 200, 'the TV is untouched');

      const audit = await core.database.db
        .selectFrom('audit_log')
        .select(['actor', 'action'])
        .where('subject', '=', one.assistantId)
        .where('action', '=', 'assistant-user.sign-out')
        .execute();
      assert.deepEqual(audit, [{ actor: 'chat-page', action: 'assistant-user.sign-out' }]);
    });

    it('a double click is no error: again after, or twice at once, 204 and one session closed', async () => {
      const { chats } = await person('SOUT-2001', 2);
      const [one, two] = chats;
      assert.ok(one && two);
      assert.equal((await signOut(bearer(one))).status, 204);
      assert.equal((await signOut(bearer(one))).status, 204, 'its sign-in has ended already');
      const both = await Promise.all([signOut(bearer(two)), signOut(bearer(two))]);
      assert.deepEqual(
        both.map((answer) => answer.status),
        [204, 204],
        both.map((answer) => answer.text).join(' '),
      );
      assert.deepEqual(await chatPageSessions('SOUT-2001'), { open: 0, all: 2 });
    });
  });

  describe('errors', () => {
    it('an anonymous conversation’s token, or the channel secret, has no sign-in to end: 409 CHAT_NOT_SIGNED_IN', async () => {
      const anonymous = await fetch(`${assistantAuth}/chat/token`, { method: 'POST' });
      assert.equal(anonymous.status, 200);
      const { token } = (await anonymous.json()) as { token: string };
      const unstarted = await signOut(`Bearer ${token}`);
      assert.equal(unstarted.status, 409);
      assert.equal(unstarted.type, 'CHAT_NOT_SIGNED_IN');
      // Started, as Web Chat does: still nobody's.
      const started = await fetch(`${assistantAuth}/v3/directline/conversations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      assert.ok([200, 201].includes(started.status), String(started.status));
      const refused = await signOut(`Bearer ${token}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.type, 'CHAT_NOT_SIGNED_IN');
      const secret = await signOut(`Bearer ${channelSecret(core)}`);
      assert.equal(secret.status, 409);
      assert.equal(secret.type, 'CHAT_NOT_SIGNED_IN');
    });

    it('client-api out of reach: 502 SUBSYSTEM_ERROR and nothing removed; then the sign-out goes through', async () => {
      const { chats } = await person('SOUT-3001', 1);
      const [one] = chats;
      assert.ok(one);
      const real = core.serviceUrl('client-api');
      core.setServiceUrl('client-api', 'http://127.0.0.1:9');
      let answer: Awaited<ReturnType<typeof signOut>>;
      try {
        answer = await signOut(bearer(one));
      } finally {
        core.setServiceUrl('client-api', real);
      }
      assert.equal(answer.status, 502);
      assert.equal(answer.type, 'SUBSYSTEM_ERROR');
      assert.equal((await refreshToken(assistantAuth, one.token)).status, 200, 'still signed in');
      assert.equal((await askDelegation(assistantAuth, runtimeKey, one.assistantId)).status, 201);
      assert.deepEqual(await chatPageSessions('SOUT-3001'), { open: 1, all: 1 });
      assert.equal((await signOut(bearer(one))).status, 204);
      assert.deepEqual(await chatPageSessions('SOUT-3001'), { open: 0, all: 1 });
    });
  });

  describe('security', () => {
    it('no token is 401 with a Bearer challenge; a forged or expired one is 403; nothing is signed out', async () => {
      const { chats } = await person('SOUT-4001', 1);
      const [one] = chats;
      assert.ok(one);
      const missing = await signOut();
      assert.equal(missing.status, 401);
      assert.equal(missing.type, 'DIRECTLINE_CREDENTIALS_MISSING');
      assert.match(String(missing.headers.get('www-authenticate')), /^Bearer realm="/);
      const [header, payload] = one.token.split('.');
      const forged = await signOut(`Bearer ${header}.${payload}.${'A'.repeat(43)}`);
      assert.equal(forged.status, 403);
      assert.equal(forged.type, 'DIRECTLINE_CREDENTIALS_INVALID');
      // A token of the same conversation, signed with the channel's key, that has expired.
      const expired = await createChannelCredentials(channelKeys(core), {
        DIRECTLINE_TOKEN_TTL: -60,
      }).issueToken({ conversationId: one.conversationId, userId: 'dl_someone', speaks: true });
      const late = await signOut(`Bearer ${expired.token}`);
      assert.equal(late.status, 403);
      assert.equal(late.type, 'DIRECTLINE_TOKEN_EXPIRED');
      assert.deepEqual(await chatPageSessions('SOUT-4001'), { open: 1, all: 1 });
      assert.equal((await refreshToken(assistantAuth, one.token)).status, 200);
      const names = await fetch(`${clientApi}/accounts/SOUT-4001/devices/signed-in`, {
        headers: { 'x-api-key': operatorKey, accept: 'application/json' },
      });
      assert.deepEqual(await names.json(), ['SOUT-4001-tv', 'chat-page']);
    });
  });
});
