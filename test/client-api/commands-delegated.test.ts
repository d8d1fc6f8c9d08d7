import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';

const BASE = '/api/v1';

/**
 * The assistant telling a device of its linked account what to do: a delegated token with `devices:control`
 * sends and reads commands on that account only; without the scope, or on another account, 403.
 */
describe('client-api: device commands with the assistant’s delegated token (devices:control)', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let clientApi: string;
  let assistantAuth: string;
  let runtimeKey: string;
  const open: SseStream[] = [];

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
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  }
  const errorType = (answer: { body: Record<string, unknown> }) =>
    (answer.body.errors as Array<{ type: string }> | undefined)?.[0]?.type;

  /** An account with a signed-in TV holding its command stream, and an assistant user linked to it. */
  async function household(accountNumber: string) {
    const tv = `${accountNumber}-tv`;
    const tokens = await signedInHousehold(core, `${clientApi}${BASE}`, {
      accountNumber,
      email: `${accountNumber.toLowerCase()}@example.test`,
      devices: [[tv, 'Living room TV']],
    });
    const stream = await openSse(`${clientApi}${BASE}/smarttv/${tv}/commands`, {
      authorization: `Bearer ${tokens[tv]}`,
    });
    open.push(stream);
    assert.equal(stream.status, 200, stream.body);
    await stream.comment('connected');
    const { data } = makeCallbackParam(core, { identity: randomUUID(), channel: 'web', accountNumber });
    const linked = await call(
      `${assistantAuth}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    );
    assert.equal(linked.status, 201);
    return { tv, stream, assistantId: String(linked.body.assistantId) };
  }

  async function delegation(assistantId: string, scope?: string[]) {
    const answer = await call(`${assistantAuth}/users/${assistantId}/delegations`, {
      method: 'POST',
      key: runtimeKey,
      body: { audience: 'client-api', ...(scope ? { scope } : {}) },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return String(answer.body.token);
  }

  before(async () => {
    ({ core, close } = await startTestFamily(['client-api', 'assistant-auth'], { SINTONIA_DEMO: '0' }));
    clientApi = core.serviceUrl('client-api');
    assistantAuth = core.serviceUrl('assistant-auth');
    runtimeKey = (await core.apiKeys.create('runtime', 'assistant runtime')).key;
  });
  after(async () => {
    for (const stream of open) stream.close();
    await close();
  });

  describe('happy', () => {
    it('devices:control sends a command to the linked account’s TV and reads its state; the action is audited', async () => {
      const home = await household('DCC-1001');
      const token = await delegation(home.assistantId, ['devices:control']);
      const commands = `${clientApi}${BASE}/accounts/DCC-1001/devices/${home.tv}/commands`;
      const sent = await call(commands, { method: 'POST', token, body: { type: 'stop' } });
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      assert.equal((await home.stream.next()).id, sent.body.id);
      const read = await call(`${commands}/${String(sent.body.id)}`, { token });
      assert.equal(read.status, 200);
      assert.equal(read.body.state, 'delivered');
      const audit = await core.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', 'like', 'delegated:Commands_SendDeviceCommandAsync%')
        .where('subject', '=', 'DCC-1001')
        .execute();
      assert.equal(audit.length, 1);
    });
  });

  describe('security', () => {
    it('without devices:control, or on another account, the delegated token is 403', async () => {
      const home = await household('DCC-2001');
      const other = await household('DCC-2002');
      const readOnly = await delegation(home.assistantId, ['devices:read']);
      const mine = `${clientApi}${BASE}/accounts/DCC-2001/devices/${home.tv}/commands`;
      const refused = await call(mine, { method: 'POST', token: readOnly, body: { type: 'pause' } });
      assert.equal(refused.status, 403);
      assert.equal(errorType(refused), 'ACCESS_DENIED');
      const control = await delegation(home.assistantId, ['devices:control']);
      const theirs = `${clientApi}${BASE}/accounts/DCC-2002/devices/${other.tv}/commands`;
      const foreign = await call(theirs, { method: 'POST', token: control, body: { type: 'pause' } });
      assert.equal(foreign.status, 403);
      assert.equal(errorType(foreign), 'ACCESS_DENIED');
      // A delegated token never holds a device's stream nor acknowledges its commands.
      const stream = await openSse(`${clientApi}${BASE}/smarttv/${home.tv}/commands`, {
        authorization: `Bearer ${control}`,
      });
      assert.equal(stream.status, 403);
    });
  });
});
