import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DelegationFamily, type JsonInit, startDelegationFamily } from '../helpers/delegated.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';

/**
 * The assistant telling a device of its linked account what to do: a delegated token with `devices:control`
 * sends and reads commands on that account only; without the scope, or on another account, 403.
 */
describe('client-api: device commands with the assistant’s delegated token (devices:control)', () => {
  let family: DelegationFamily;
  const open: SseStream[] = [];

  const call = (url: string, init?: JsonInit) => family.call<Record<string, unknown>>(url, init);
  const errorType = (answer: { body: Record<string, unknown> }) =>
    (answer.body.errors as Array<{ type: string }> | undefined)?.[0]?.type;

  /** An account with a signed-in TV holding its command stream, and an assistant user linked to it. */
  async function household(accountNumber: string) {
    const tv = `${accountNumber}-tv`;
    const tokens = await signedInHousehold(family.core, `${family.api}`, {
      accountNumber,
      email: `${accountNumber.toLowerCase()}@example.test`,
      devices: [[tv, 'Living room TV']],
    });
    const stream = await openSse(`${family.api}/smarttv/${tv}/commands`, {
      authorization: `Bearer ${tokens[tv]}`,
    });
    open.push(stream);
    assert.equal(stream.status, 200, stream.body);
    await stream.comment('connected');
    return { tv, stream, assistantId: await family.linkedAssistant(accountNumber) };
  }

  before(async () => {
    family = await startDelegationFamily({ SINTONIA_DEMO: '0' });
  });
  after(async () => {
    for (const stream of open) stream.close();
    await family.close();
  });

  describe('happy', () => {
    it('devices:control sends a command to the linked account’s TV and reads its state; the action is audited', async () => {
      const home = await household('DCC-1001');
      const token = await family.delegation(home.assistantId, ['devices:control']);
      const commands = `${family.api}/accounts/DCC-1001/devices/${home.tv}/commands`;
      const sent = await call(commands, { method: 'POST', token, body: { type: 'stop' } });
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      assert.equal((await home.stream.next()).id, sent.body.id);
      const read = await call(`${commands}/${String(sent.body.id)}`, { token });
      assert.equal(read.status, 200);
      assert.equal(read.body.state, 'delivered');
      const audit = await family.core.database.db
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
      const readOnly = await family.delegation(home.assistantId, ['devices:read']);
      const mine = `${family.api}/accounts/DCC-2001/devices/${home.tv}/commands`;
      const refused = await call(mine, { method: 'POST', token: readOnly, body: { type: 'pause' } });
      assert.equal(refused.status, 403);
      assert.equal(errorType(refused), 'ACCESS_DENIED');
      const control = await family.delegation(home.assistantId, ['devices:control']);
      const theirs = `${family.api}/accounts/DCC-2002/devices/${other.tv}/commands`;
      const foreign = await call(theirs, { method: 'POST', token: control, body: { type: 'pause' } });
      assert.equal(foreign.status, 403);
      assert.equal(errorType(foreign), 'ACCESS_DENIED');
      // A delegated token never holds a device's stream nor acknowledges its commands.
      const stream = await openSse(`${family.api}/smarttv/${home.tv}/commands`, {
        authorization: `Bearer ${control}`,
      });
      assert.equal(stream.status, 403);
    });
  });
});
