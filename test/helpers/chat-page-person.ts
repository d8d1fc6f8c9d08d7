import assert from 'node:assert/strict';
import type { DirectLineTables } from '../../src/assistant-auth/directline/tables.ts';
import type { Core } from '../../src/core/core.ts';
import { HOUSEHOLD_PASSWORD } from './household.ts';
import { until } from './until.ts';

/** A conversation the chat page's sign-in bound to a person, spoken to over Direct Line's REST routes. */
export interface SignedInChat {
  conversationId: string;
  token: string;
}

interface Reply {
  text?: string;
  suggestedActions?: { actions: Array<{ title: string }> };
}

const json = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The person signs in on the chat page at `assistantAuth` (its base URL) and Web Chat starts the bound
 * conversation, as the page does.
 */
export async function signInOnChatPage(assistantAuth: string, email: string): Promise<SignedInChat> {
  const response = await fetch(`${assistantAuth}/chat/sign-in`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ username: email, password: HOUSEHOLD_PASSWORD }),
  });
  const body = (await response.json()) as SignedInChat;
  assert.equal(response.status, 200, JSON.stringify(body));
  const started = await fetch(`${assistantAuth}/v3/directline/conversations`, {
    method: 'POST',
    headers: { ...json, ...bearer(body.token) },
    body: '{}',
  });
  assert.ok([200, 201].includes(started.status), `start: ${started.status} ${await started.clone().text()}`);
  return { conversationId: body.conversationId, token: body.token };
}

/** POST /v3/directline/tokens/refresh at `assistantAuth`: its status and, when 200, the new token. */
export async function refreshToken(
  assistantAuth: string,
  token: string,
): Promise<{ status: number; token?: string; type?: string }> {
  const response = await fetch(`${assistantAuth}/v3/directline/tokens/refresh`, {
    method: 'POST',
    headers: bearer(token),
  });
  const body = (await response.json()) as { token?: string; errors?: Array<{ type: string }> };
  return { status: response.status, token: body.token, type: body.errors?.[0]?.type };
}

/** Posts `text` to the conversation at `assistantAuth` and waits for the assistant's reply to it. */
export async function say(assistantAuth: string, chat: SignedInChat, text: string): Promise<Reply> {
  const conversation = `${assistantAuth}/v3/directline/conversations/${chat.conversationId}/activities`;
  const posted = await fetch(conversation, {
    method: 'POST',
    headers: { ...json, ...bearer(chat.token) },
    body: JSON.stringify({ type: 'message', from: { id: 'person' }, text }),
  });
  assert.equal(posted.status, 200, await posted.clone().text());
  const { id } = (await posted.json()) as { id: string };
  return until(async () => {
    const listed = await fetch(conversation, { headers: bearer(chat.token) });
    const { activities } = (await listed.json()) as {
      activities: Array<Reply & { type: string; replyToId?: string }>;
    };
    return activities.find((activity) => activity.type === 'message' && activity.replyToId === id);
  }, `the answer to "${text}"`);
}

/** The assistant user a conversation speaks for, as its row in the store holds it. */
export async function speakerOf(core: Core, conversationId: string): Promise<string> {
  const row = await core.database.db
    .withTables<DirectLineTables>()
    .selectFrom('directline_conversations')
    .select('assistant_id')
    .where('id', '=', conversationId)
    .executeTakeFirst();
  assert.ok(row?.assistant_id, 'the conversation is bound to a person');
  return row.assistant_id;
}

/** POST /users/{assistantId}/delegations at `assistantAuth` with a runtime key. */
export async function askDelegation(
  assistantAuth: string,
  runtimeKey: string,
  assistantId: string,
): Promise<{ status: number; token?: string; type?: string }> {
  const response = await fetch(`${assistantAuth}/users/${assistantId}/delegations`, {
    method: 'POST',
    headers: { ...json, 'x-api-key': runtimeKey },
    body: JSON.stringify({ audience: 'client-api' }),
  });
  const body = (await response.json()) as { token?: string; errors?: Array<{ type: string }> };
  return { status: response.status, token: body.token, type: body.errors?.[0]?.type };
}

/** The status of a device list of the account at `clientApi` (with its base path) with this token. */
export async function devicesStatus(
  clientApi: string,
  accountNumber: string,
  token: string,
): Promise<number> {
  const response = await fetch(`${clientApi}/accounts/${accountNumber}/devices`, { headers: bearer(token) });
  await response.arrayBuffer();
  return response.status;
}

/** The names of the account's devices, read with an operator key. */
export async function deviceNames(clientApi: string, accountNumber: string, operatorKey: string) {
  const response = await fetch(`${clientApi}/accounts/${accountNumber}/devices`, {
    headers: { 'x-api-key': operatorKey, accept: 'application/json' },
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as Array<{ name: string }>).map((device) => device.name).sort();
}
