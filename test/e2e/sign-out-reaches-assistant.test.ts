import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import {
  askDelegation,
  deviceNames,
  devicesStatus,
  refreshToken,
  type SignedInChat,
  say,
  signInOnChatPage,
  speakerOf,
} from '../helpers/chat-page-person.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';

const BASE = '/api/v1';

/**
 * A conversation the chat page bound to a person stops acting for them once the session its sign-in
 * opened is closed (by the person, "sign out everywhere" or an operator), once they are unlinked, or once
 * their assistant user is removed: its token is no longer renewed, the assistant gets no delegation, and a
 * delegated token issued before is refused by client-api at once.
 */
describe('a sign-out reaches the assistant', () => {
  let core: TestCore;
  let family: RunningFamily;
  let runtimeKey: string;
  let operatorKey: string;
  let assistantAuth: string;
  let clientApi: string;

  before(async () => {
    core = await createTestCore({ CHAT_PAGE: 'on' });
    runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    operatorKey = (await core.apiKeys.create('backoffice', 'operator')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
    assistantAuth = family.url('assistant-auth');
    clientApi = `${family.url('client-api')}${BASE}`;
  });
  after(async () => {
    await family?.close();
    await core?.dispose();
  });

  /** An account with two signed-in TVs, its person signed in on the chat page and acting through it. */
  async function signedInPerson(accountNumber: string) {
    const email = `${accountNumber.toLowerCase()}@example.test`;
    const tv = await signedInHousehold(core, clientApi, {
      accountNumber,
      email,
      devices: [
        [`${accountNumber}-bed`, 'Bedroom TV'],
        [`${accountNumber}-liv`, 'Living room'],
      ],
    });
    const chat = await signInOnChatPage(assistantAuth, email);
    const assistantId = await speakerOf(core, chat.conversationId);
    // Before anything closes: the token renews, the assistant acts, a delegation is granted and honoured.
    const renewed = await refreshToken(assistantAuth, chat.token);
    assert.equal(renewed.status, 200);
    const listed = await say(assistantAuth, chat, 'what devices do I have?');
    assert.match(listed.text ?? '', /You have 3 devices/);
    assert.match(listed.text ?? '', /Bedroom TV/);
    assert.match(listed.text ?? '', /Chat page/, 'the chat page is one of the account’s signed-in devices');
    const delegation = await askDelegation(assistantAuth, runtimeKey, assistantId);
    assert.equal(delegation.status, 201);
    const delegated = delegation.token ?? '';
    assert.equal(await devicesStatus(clientApi, accountNumber, delegated), 200);
    return {
      accountNumber,
      email,
      chat,
      renewedToken: renewed.token ?? '',
      assistantId,
      delegated,
      bedroom: tv[`${accountNumber}-bed`] ?? '',
      living: tv[`${accountNumber}-liv`] ?? '',
    };
  }

  /** What must hold once the person's sign-in no longer stands. */
  async function assertNoLongerActs(
    person: Awaited<ReturnType<typeof signedInPerson>>,
    delegationRefusal: { status: number; type: string },
  ) {
    for (const token of [person.chat.token, person.renewedToken]) {
      const refresh = await refreshToken(assistantAuth, token);
      assert.equal(refresh.status, 403, 'the conversation’s token is not renewed');
      assert.equal(refresh.type, 'DIRECTLINE_CREDENTIALS_INVALID');
    }
    assert.equal(
      await devicesStatus(clientApi, person.accountNumber, person.delegated),
      401,
      'a delegated token issued before is refused at once',
    );
    const asked = await askDelegation(assistantAuth, runtimeKey, person.assistantId);
    assert.equal(asked.status, delegationRefusal.status);
    assert.equal(asked.type, delegationRefusal.type);
    const listed = await say(assistantAuth, person.chat, 'what devices do I have?');
    assert.doesNotMatch(listed.text ?? '', /Bedroom TV|Living room/, 'no device is listed');
    // The agents drop a delegated token client-api refused: the next question is told to sign in again,
    // not answered with an error.
    const again = await say(assistantAuth, person.chat, 'what devices do I have?');
    assert.match(again.text ?? '', /account linked|sign in/i, again.text);
  }

  const signedOut = { status: 409, type: 'ASSISTANT_USER_SIGNED_OUT' };

  it('after "sign out everywhere": no renewal, no delegation, and a pending rename is not done on "yes"', async () => {
    const person = await signedInPerson('OUT-1001');
    const asked = await say(assistantAuth, person.chat, 'rename the bedroom tv to Hacked');
    assert.match(asked.text ?? '', /Do you want me to rename «Bedroom TV» to «Hacked»/);
    const everywhere = await fetch(`${clientApi}/accounts/${person.accountNumber}/sessions`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${person.bedroom}` },
    });
    assert.equal(everywhere.status, 204);
    const yes = await say(assistantAuth, person.chat, 'Yes');
    assert.doesNotMatch(yes.text ?? '', /Done/);
    assert.deepEqual(
      await deviceNames(clientApi, person.accountNumber, operatorKey),
      ['Bedroom TV', 'Chat page', 'Living room'],
      'nothing renamed',
    );
    await assertNoLongerActs(person, signedOut);
  });

  it('after an operator closes the account’s sessions', async () => {
    const person = await signedInPerson('OUT-2001');
    const closed = await fetch(`${clientApi}/accounts/${person.accountNumber}/sessions?qspVersion=All`, {
      method: 'DELETE',
      headers: { 'x-api-key': operatorKey },
    });
    assert.equal(closed.status, 204);
    await assertNoLongerActs(person, signedOut);
  });

  it('after the person signs the chat page’s device out from their TV; a new sign-in acts again', async () => {
    const person = await signedInPerson('OUT-3001');
    const signOut = await fetch(`${clientApi}/accounts/${person.accountNumber}/devices/chat-page/sessions`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${person.living}` },
    });
    assert.equal(signOut.status, 204);
    assert.equal(await devicesStatus(clientApi, person.accountNumber, person.bedroom), 200, 'the TVs stay');
    await assertNoLongerActs(person, signedOut);

    const again = await signInOnChatPage(assistantAuth, person.email);
    assert.equal((await refreshToken(assistantAuth, again.token)).status, 200);
    assert.match((await say(assistantAuth, again, 'what devices do I have?')).text ?? '', /Bedroom TV/);
  });

  it('after the assistant user is deleted', async () => {
    const person = await signedInPerson('OUT-4001');
    const removed = await fetch(`${assistantAuth}/users/${person.assistantId}`, {
      method: 'DELETE',
      headers: { 'x-api-key': runtimeKey },
    });
    assert.equal(removed.status, 204);
    await assertNoLongerActs(person, { status: 404, type: 'USER_NOT_FOUND' });
  });

  it('a person the gateway linked, once unlinked: their delegated token is refused at once, their conversation not renewed', async () => {
    const accountNumber = 'OUT-5001';
    await signedInHousehold(core, clientApi, {
      accountNumber,
      email: 'out-5001@example.test',
      devices: [[`${accountNumber}-bed`, 'Bedroom TV']],
    });
    const identity = 'gateway-person-5001';
    const gatewayKey = (await core.apiKeys.create('gateway', 'gateway')).key;
    const callback = (path: string, payload: { accountNumber?: string }) =>
      fetch(
        `${assistantAuth}/users/assistantid/integrated${path}?data=${encodeURIComponent(
          makeCallbackParam(core, { identity, channel: 'web', ...payload }).data,
        )}`,
      );
    const linked = await callback('', { accountNumber });
    assert.equal(linked.status, 201);
    const { assistantId } = (await linked.json()) as { assistantId: string };
    const bound = await fetch(`${assistantAuth}/token`, {
      headers: { 'x-api-key': gatewayKey, 'x-channel': 'web', 'x-channel-user-id': identity },
    });
    assert.equal(bound.status, 200);
    const chat = (await bound.json()) as SignedInChat;
    assert.equal((await refreshToken(assistantAuth, chat.token)).status, 200);
    const delegated = (await askDelegation(assistantAuth, runtimeKey, assistantId)).token ?? '';
    assert.equal(await devicesStatus(clientApi, accountNumber, delegated), 200);

    const status = async (token: string) => {
      const response = await fetch(`${assistantAuth}/delegations/status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      assert.equal(response.status, 200);
      return ((await response.json()) as { active: boolean }).active;
    };
    assert.equal(await status(delegated), true);
    const [header, payload, signature] = delegated.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const otherAccount = Buffer.from(JSON.stringify({ ...claims, acc: 'OUT-9999' })).toString('base64url');
    assert.equal(await status(`${header}.${otherAccount}.${signature}`), false, 'tampered');

    assert.equal((await callback('/logout', {})).status, 204);
    assert.equal(await status(delegated), false, 'its link is gone');
    assert.equal(
      await devicesStatus(clientApi, accountNumber, delegated),
      401,
      'refused right after unlinking, not when it expires',
    );
    assert.equal((await refreshToken(assistantAuth, chat.token)).status, 403);

    const anonymous = await fetch(`${assistantAuth}/token`, { headers: { 'x-api-key': gatewayKey } });
    const token = ((await anonymous.json()) as SignedInChat).token;
    assert.equal((await refreshToken(assistantAuth, token)).status, 200, 'nobody to sign out: renewed');
  });
});
