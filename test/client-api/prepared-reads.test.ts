import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RepositoryOptions } from '../../src/client-api/accounts/prepared-read.ts';
import { createAccountRepository } from '../../src/client-api/accounts/repository.ts';
import { createDeviceRepository } from '../../src/client-api/devices/repository.ts';
import { createSessionRepository } from '../../src/client-api/sessions/repository.ts';
import { testDatabase } from '../helpers/harness.ts';
import { type AccountsFixture, accountsFixture } from './accounts-fixtures.ts';

/** The hot-path reads answer the same as prepared statements (SQLite) and as Kysely queries. */
describe('client-api hot-path reads: prepared statement and Kysely twin', () => {
  let f: AccountsFixture;
  const sessionIds: string[] = [];
  const repositories = (options: RepositoryOptions) => ({
    accounts: createAccountRepository(f.core.database, options),
    devices: createDeviceRepository(f.core.database, options),
    sessions: createSessionRepository(f.core.database, options),
  });

  before(async () => {
    f = await accountsFixture();
    for (const account of ['hot-1', 'hot-2']) {
      const { email } = await f.account(account);
      for (const device of ['tv-b', 'tv-a', 'web-c']) {
        sessionIds.push((await f.signIn(email, device)).sessionId);
      }
    }
    await f.account('hot-empty');
    // A closed session reads as closed either way.
    const closed = await f.call('DELETE', '/accounts/hot-2/devices/tv-a/sessions', { key: f.operatorKey });
    assert.equal(closed.statusCode, 204);
  });
  after(() => f.close());

  it('runs the prepared statements on SQLite only', () => {
    assert.equal(f.core.database.sqlite !== undefined, testDatabase === 'sqlite');
  });

  it('accounts.find, devices.list and sessions.state agree, found or not', async () => {
    const prepared = repositories({});
    const kysely = repositories({ prepared: false });
    for (const account of ['hot-1', 'hot-2', 'hot-empty', 'no-such-account']) {
      assert.deepEqual(await prepared.accounts.find(account), await kysely.accounts.find(account), account);
      const devices = await prepared.devices.list(account);
      assert.deepEqual(devices, await kysely.devices.list(account), account);
      assert.equal(devices.length, account.startsWith('hot-') && account !== 'hot-empty' ? 3 : 0);
    }
    const states = [];
    for (const id of [...sessionIds, 'no-such-session']) {
      const state = await prepared.sessions.state(id, true);
      assert.deepEqual(state, await kysely.sessions.state(id, true), id);
      states.push(state?.closed_at === null ? 'open' : state ? 'closed' : 'none');
    }
    assert.deepEqual(states, ['open', 'open', 'open', 'open', 'closed', 'open', 'none']);
  });
});
