import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DelegationFamily, type JsonInit, startDelegationFamily } from '../helpers/delegated.ts';
import { signedInHousehold } from '../helpers/household.ts';

/**
 * Who is watching for the assistant: its delegated token reads its linked account's streams with the scope
 * playback:read, and nothing without it nor on another account.
 */
describe('playback for a delegated token', () => {
  let family: DelegationFamily;

  /** What this file reads of client-api's answers: the streams, or the error. */
  type PlaybackBody = {
    streams: Array<{ name: string; contentId: number; offset: number }>;
    errors: Array<{ type: string }>;
  };
  const call = (url: string, init?: JsonInit) => family.call<PlaybackBody>(url, init);

  /** An account with one signed-in TV playing, and an assistant user linked to it. */
  async function household(accountNumber: string) {
    const email = `${accountNumber.toLowerCase()}@example.test`;
    const tokens = await signedInHousehold(family.core, `${family.api}`, {
      accountNumber,
      email,
      devices: [[`${accountNumber}-tv`, 'Bedroom TV']],
    });
    const userHash = (
      await family.core.database.db
        .withTables<{ accounts: { account_number: string; user_hash: string } }>()
        .selectFrom('accounts')
        .select('user_hash')
        .where('account_number', '=', accountNumber)
        .executeTakeFirstOrThrow()
    ).user_hash;
    const started = await call(
      `${family.api}/smarttv/${accountNumber}-tv/users/${userHash}/playback/77?offset=3`,
      {
        method: 'PUT',
        token: tokens[`${accountNumber}-tv`],
      },
    );
    assert.equal(started.status, 200, JSON.stringify(started.body));
    return { accountNumber, assistantId: await family.linkedAssistant(accountNumber) };
  }

  before(async () => {
    family = await startDelegationFamily();
  });
  after(() => family.close());

  it('reads its own account’s streams with playback:read only', async () => {
    const home = await household('PBD-1001');
    const other = await household('PBD-1002');
    const token = await family.delegation(home.assistantId, ['playback:read']);
    const own = await call(`${family.api}/accounts/${home.accountNumber}/playback`, { token });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(
      own.body.streams.map((stream: { name: string; contentId: number; offset: number }) => [
        stream.name,
        stream.contentId,
        stream.offset,
      ]),
      [['Bedroom TV', 77, 3]],
    );
    const foreign = await call(`${family.api}/accounts/${other.accountNumber}/playback`, {
      token,
    });
    assert.equal(foreign.status, 403);
    const withoutScope = await family.delegation(home.assistantId, ['devices:read']);
    const refused = await call(`${family.api}/accounts/${home.accountNumber}/playback`, {
      token: withoutScope,
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].type, 'ACCESS_DENIED');
    // Reading is all the scope gives: the stream limit is the operator's.
    const limit = await call(`${family.api}/accounts/${home.accountNumber}/stream-limit/5`, {
      method: 'PUT',
      token,
    });
    assert.equal(limit.status, 403);
  });
});
