import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';

const BASE = '/api/v1';

/**
 * Who is watching for the assistant: its delegated token reads its linked account's streams with the scope
 * playback:read, and nothing without it nor on another account.
 */
describe('playback for a delegated token', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let clientApi: string;
  let assistantAuth: string;
  let runtimeKey: string;

  async function call(
    url: string,
    init: { method?: string; token?: string; key?: string; body?: unknown } = {},
  ) {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.key ? { 'x-api-key': init.key } : {}),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** An account with one signed-in TV playing, and an assistant user linked to it. */
  async function household(accountNumber: string) {
    const email = `${accountNumber.toLowerCase()}@example.test`;
    const tokens = await signedInHousehold(core, `${clientApi}${BASE}`, {
      accountNumber,
      email,
      devices: [[`${accountNumber}-tv`, 'Bedroom TV']],
    });
    const userHash = (
      await core.database.db
        .withTables<{ accounts: { account_number: string; user_hash: string } }>()
        .selectFrom('accounts')
        .select('user_hash')
        .where('account_number', '=', accountNumber)
        .executeTakeFirstOrThrow()
    ).user_hash;
    const started = await call(
      `${clientApi}${BASE}/smarttv/${accountNumber}-tv/users/${userHash}/playback/77?offset=3`,
      {
        method: 'PUT',
        token: tokens[`${accountNumber}-tv`],
      },
    );
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const { data } = makeCallbackParam(core, { identity: randomUUID(), channel: 'web', accountNumber });
    const linked = await call(
      `${assistantAuth}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    );
    assert.equal(linked.status, 201);
    return { accountNumber, assistantId: (linked.body as { assistantId: string }).assistantId };
  }

  async function delegation(assistantId: string, scope: string[]) {
    const answer = await call(`${assistantAuth}/users/${assistantId}/delegations`, {
      method: 'POST',
      key: runtimeKey,
      body: { audience: 'client-api', scope },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return (answer.body as { token: string }).token;
  }

  before(async () => {
    ({ core, close } = await startTestFamily(['client-api', 'assistant-auth']));
    clientApi = core.serviceUrl('client-api');
    assistantAuth = core.serviceUrl('assistant-auth');
    runtimeKey = (await core.apiKeys.create('runtime', 'assistant runtime')).key;
  });
  after(async () => close());

  it('reads its own account’s streams with playback:read only', async () => {
    const home = await household('PBD-1001');
    const other = await household('PBD-1002');
    const token = await delegation(home.assistantId, ['playback:read']);
    const own = await call(`${clientApi}${BASE}/accounts/${home.accountNumber}/playback`, { token });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(
      own.body.streams.map((stream: { name: string; contentId: number; offset: number }) => [
        stream.name,
        stream.contentId,
        stream.offset,
      ]),
      [['Bedroom TV', 77, 3]],
    );
    const foreign = await call(`${clientApi}${BASE}/accounts/${other.accountNumber}/playback`, { token });
    assert.equal(foreign.status, 403);
    const withoutScope = await delegation(home.assistantId, ['devices:read']);
    const refused = await call(`${clientApi}${BASE}/accounts/${home.accountNumber}/playback`, {
      token: withoutScope,
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].type, 'ACCESS_DENIED');
    // Reading is all the scope gives: the stream limit is the operator's.
    const limit = await call(`${clientApi}${BASE}/accounts/${home.accountNumber}/stream-limit/5`, {
      method: 'PUT',
      token,
    });
    assert.equal(limit.status, 403);
  });
});
