import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import { createConfirmations } from '../../src/agents/tools/confirmations.ts';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import type { AssistantAuthTables } from '../../src/assistant-auth/tables.ts';
import { enqueueMail, OUTBOX_KEY_PURPOSE } from '../../src/client-api/mail/outbox.ts';
import { createOutboxRepository, type MailTables } from '../../src/client-api/mail/outbox-repository.ts';
import type { AccountTables } from '../../src/client-api/tables.ts';
import { loadConfig } from '../../src/core/config.ts';
import { MasterKeyMismatchError, openCore } from '../../src/core/core.ts';
import { carriedPurposes, sealedColumns } from '../../src/core/keys/purposes.ts';
import { decrypt, deriveKey, encrypt } from '../../src/core/secrets.ts';
import { createTestCore, type Env, type TestCore, testDatabase } from '../helpers/harness.ts';
import { HOUSEHOLD_PASSWORD, signedInHousehold } from '../helpers/household.ts';
import { call, callOnce, type Running, serveInProcess as serve } from '../helpers/in-process-family.ts';
import { runCli } from '../helpers/processes.ts';

const linkOf = (body: Record<string, unknown>) =>
  (body.linkedAccount as { accountNumber?: string })?.accountNumber;
const kidOf = (token: unknown) => decodeProtectedHeader(String(token)).kid;

describe(`master-key rotation (${testDatabase})`, () => {
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('base64');
  let store: TestCore;
  /** The environments of the roll: old key only; new key from a file with the old as previous (from a file); new only. */
  let before_: Env;
  let during: Env;
  let afterwards: Env;
  let running: Running | undefined;
  const owner = { assistantId: 'a-confirm', conversationId: 'c-1' };
  const facts = {
    deviceToken: '',
    deviceKid: '',
    assistantKid: '',
    runtimeKey: '',
    users: {} as Record<string, { identity: string; assistantId: string; account: string }>,
    spentCallback: '',
    directLineSecret: '',
    mailId: '',
    /** When the confirmation was asked: it is confirmed at this time too, within its lifetime however long the file takes. */
    confirmationAt: 0,
  };

  before(async () => {
    store = await createTestCore({ SINTONIA_MASTER_KEY: oldKey, MAIL_POLL_INTERVAL_MS: '600000' });
    before_ = store.env;
    const newFile = join(String(store.env.SINTONIA_DATA_DIR), 'new.key');
    const oldFile = join(String(store.env.SINTONIA_DATA_DIR), 'old.key');
    writeFileSync(newFile, `${newKey}\n`, { mode: 0o600 });
    writeFileSync(oldFile, `${oldKey}\n`, { mode: 0o600 });
    during = {
      ...before_,
      SINTONIA_MASTER_KEY: undefined,
      SINTONIA_MASTER_KEY_FILE: newFile,
      SINTONIA_MASTER_KEY_PREVIOUS_FILE: oldFile,
    };
    afterwards = { ...before_, SINTONIA_MASTER_KEY: newKey };
  });
  after(async () => {
    await running?.close();
    await store.dispose();
  });

  /** A user created by the gateway's callback, linked to `account`. */
  async function integrate(on: Running, name: string, account: string) {
    const identity = randomUUID();
    const answer = await callback(on, {
      identity,
      channel: 'web',
      accountNumber: account,
      phoneNumber: '+34600111222',
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    facts.users[name] = { identity, assistantId: String(answer.body.assistantId), account };
    return answer.data;
  }

  /**
   * The gateway's callback for `payload`. A callback parameter is single use, and a 503 may come after its
   * nonce was spent; the service then gives the nonce back, but that is a write too, and while the
   * rotation holds SQLite's write lock it fails as well: a retry is a new parameter, as the gateway would
   * seal one.
   */
  async function callback(on: Running, payload: Parameters<typeof makeCallbackParam>[1]) {
    for (let attempt = 1; ; attempt += 1) {
      const { data } = makeCallbackParam(on.core, payload);
      const answer = await callOnce(
        `${on.assistantAuth}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
        {},
      );
      if (answer.status !== 503 || attempt >= 20) return { ...answer, data };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  const readUser = (on: Running, name: string) =>
    call(`${on.assistantAuth}/users/${facts.users[name]?.assistantId}`, { key: facts.runtimeKey });
  const delegate = (on: Running, name: string) =>
    call(`${on.assistantAuth}/users/${facts.users[name]?.assistantId}/delegations`, {
      method: 'POST',
      key: facts.runtimeKey,
      body: { audience: 'client-api' },
    });

  it('under the old key: a device signed in, linked assistant users, a delegated token, a pending mail and confirmation', async () => {
    running = await serve(before_);
    const tokens = await signedInHousehold(running.core, running.clientApi, {
      accountNumber: 'ROT-1',
      email: 'rotation@example.com',
      devices: [['stb-rot-1', 'Living room']],
    });
    facts.deviceToken = String(tokens['stb-rot-1']);
    facts.deviceKid = String(kidOf(facts.deviceToken));
    facts.runtimeKey = (await running.core.apiKeys.create('runtime', 'rotation')).key;
    facts.spentCallback = await integrate(running, 'first', 'ACC-R1');
    const delegated = await delegate(running, 'first');
    assert.equal(delegated.status, 201, JSON.stringify(delegated.body));
    facts.assistantKid = String(kidOf(delegated.body.token));
    facts.directLineSecret = running.core.key('directline-secret').toString('base64url');
    facts.confirmationAt = Date.now();
    await createConfirmations(running.core, () => facts.confirmationAt).request(owner, 'cancel_device', {
      deviceId: 'stb-rot-1',
    });
    await running.close();
    running = undefined;
  });

  it('a process with the new key as current and the old as previous starts on the old store and serves', async () => {
    running = await serve(during);
    assert.equal((await readUser(running, 'first')).status, 200);
    assert.equal(linkOf((await readUser(running, 'first')).body), 'ACC-R1');
    await integrate(running, 'beforeRotation', 'ACC-R2');
    assert.equal((await delegate(running, 'first')).status, 201);
    // A mail left pending across the rotation (the worker polls every 10 minutes here).
    const outbox = createOutboxRepository(running.core.database.db.withTables<MailTables>());
    facts.mailId = await enqueueMail(
      outbox,
      running.core.key(OUTBOX_KEY_PURPOSE),
      'rotation',
      { to: 'someone@example.com', subject: 'kept across the rotation', text: 'still readable' },
      Date.now(),
    );
  });

  it('refuses what it does not understand and --help changes nothing (the next test rotates from the old key)', async () => {
    const help = await runCli(['master-key', 'rotate', '--help'], during);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: sintonia master-key rotate/);
    for (const args of [['--new-key', newKey], ['extra']]) {
      const refused = await runCli(['master-key', 'rotate', ...args], during);
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(refused.stdout, '');
    }
  });

  it('a value that opens under neither key aborts the rotation: nothing changes, in any table', async () => {
    const users = store.database.db.withTables<AssistantAuthTables>();
    const { assistantId } = facts.users.first as { assistantId: string };
    const row = await users
      .selectFrom('assistant_users')
      .select('link_sealed')
      .where('assistant_id', '=', assistantId)
      .executeTakeFirstOrThrow();
    const foreign = encrypt(randomBytes(32), '{"accountNumber":"X"}', assistantId);
    await users
      .updateTable('assistant_users')
      .set({ link_sealed: foreign })
      .where('assistant_id', '=', assistantId)
      .execute();
    const before = await store.database.db.selectFrom('store_identity').selectAll().execute();
    const signingKeys = () =>
      store.database.db.withTables<AccountTables>().selectFrom('device_signing_keys').selectAll().execute();
    const keysBefore = await signingKeys();
    const refused = await runCli(['master-key', 'rotate'], during);
    await users
      .updateTable('assistant_users')
      .set({ link_sealed: row.link_sealed })
      .where('assistant_id', '=', assistantId)
      .execute();
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(
      refused.stderr,
      new RegExp(`assistant_users.link_sealed of assistant_id ${assistantId} opens under neither`),
    );
    assert.deepEqual(await store.database.db.selectFrom('store_identity').selectAll().execute(), before);
    // device_signing_keys comes before assistant_users: its reseal was rolled back with the rest.
    assert.deepEqual(await signingKeys(), keysBefore);
  });

  it('`sintonia master-key rotate` reseals every sealed column and moves the fingerprint, while the process serves sealed writes', async () => {
    const on = running as Running;
    const rotation = runCli(['master-key', 'rotate'], during);
    let done = false;
    void rotation.finally(() => {
      done = true;
    });
    // Writes of sealed values through HTTP while the rotation runs (at most 100): new linked users, and the
    // first user's link written again (a row the rotation reseals too).
    const first = facts.users.first as { identity: string };
    for (let index = 0; index < 100 && !done; index += 1) {
      await integrate(on, `load${index}`, `ACC-L${index}`);
      const relinked = await callback(on, {
        identity: first.identity,
        channel: 'web',
        accountNumber: 'ACC-R1',
      });
      assert.equal(relinked.status, 200, JSON.stringify(relinked.body));
    }
    const rotated = await rotation;
    assert.equal(rotated.code, 0, rotated.stderr);
    const report = JSON.parse(rotated.stdout);
    assert.equal(report.from, 'SINTONIA_MASTER_KEY_PREVIOUS');
    assert.deepEqual(report.resealed, {
      'device_signing_keys.private_jwk_sealed': 1,
      'mail_outbox.sealed_message': 1,
      'assistant_signing_keys.private_jwk_sealed':
        report.resealed['assistant_signing_keys.private_jwk_sealed'],
      'assistant_users.phone_sealed': report.resealed['assistant_users.phone_sealed'],
      'assistant_users.link_sealed': report.resealed['assistant_users.link_sealed'],
      'agent_confirmations.arguments_sealed': 1,
    });
    // Those two and the users written while it ran that it saw (the others are left for the second rotate).
    assert.ok(report.resealed['assistant_users.link_sealed'] >= 1);
    assert.ok(report.resealed['assistant_users.phone_sealed'] >= 2);
    assert.ok(report.resealed['assistant_signing_keys.private_jwk_sealed'] >= 1);
    assert.equal(report.carried.length, Object.keys(carriedPurposes).length);
  });

  it('the process started before the rotation still reads everything and keeps serving (the roll)', async () => {
    const on = running as Running;
    assert.equal(linkOf((await readUser(on, 'first')).body), 'ACC-R1');
    assert.equal(linkOf((await readUser(on, 'beforeRotation')).body), 'ACC-R2');
    assert.equal((await delegate(on, 'beforeRotation')).status, 201);
    // It still seals under the old key until restarted: a user it links now is sealed under the old key.
    await integrate(on, 'duringRoll', 'ACC-R3');
    await on.close();
    running = undefined;
  });

  it('restarted with the same keys, it reads what was sealed during the roll; a second rotate reseals only that', async () => {
    running = await serve(during);
    assert.equal(linkOf((await readUser(running, 'duringRoll')).body), 'ACC-R3');
    await running.close();
    running = undefined;
    const again = await runCli(['master-key', 'rotate'], during);
    assert.equal(again.code, 0, again.stderr);
    const report = JSON.parse(again.stdout);
    assert.equal(report.from, 'SINTONIA_MASTER_KEY');
    // At least the user linked during the roll; with the rest, every linked user, each once.
    assert.ok(report.resealed['assistant_users.link_sealed'] >= 1);
    assert.equal(
      report.resealed['assistant_users.link_sealed'] + report.alreadyCurrent['assistant_users.link_sealed'],
      Object.keys(facts.users).length,
    );
    assert.equal(report.resealed['device_signing_keys.private_jwk_sealed'], 0);
  });

  it('the old key alone is refused at start-up; the new key alone opens the store', async () => {
    const refused = await runCli(['key', 'list'], before_);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /SINTONIA_MASTER_KEY is not the master key/);
    assert.match(refused.stderr, /refusing to start/);
    await assert.rejects(openCore(loadConfig(before_ as NodeJS.ProcessEnv)), MasterKeyMismatchError);
    const listed = await runCli(['key', 'list'], afterwards);
    assert.equal(listed.code, 0, listed.stderr);
  });

  it('every sealed value in the store opens under the new key and under no other', async () => {
    const db = store.database.db.withTables<Record<string, Record<string, string | null>>>();
    let values = 0;
    for (const column of sealedColumns) {
      const rows = await db.selectFrom(column.table).select([column.id, column.column]).execute();
      for (const row of rows) {
        const sealed = row[column.column];
        if (!sealed) continue;
        const id = String(row[column.id]);
        assert.doesNotThrow(() =>
          decrypt(deriveKey(Buffer.from(newKey, 'base64'), column.purpose), sealed, id),
        );
        assert.throws(() => decrypt(deriveKey(Buffer.from(oldKey, 'hex'), column.purpose), sealed, id));
        values += 1;
      }
    }
    assert.ok(values >= 10, `${values} sealed values`);
    // A purpose the rotation does not know of cannot be derived at all.
    assert.throws(() => store.key('undeclared-purpose'), /not declared in src\/core\/keys\/purposes\.ts/);
  });

  it('with the new key only, everything still works through the real operations', async () => {
    running = await serve(afterwards);
    // Sign-in: the device signing key's private half opens; the old access token still verifies.
    const signIn = await call(`${running.clientApi}/auth/smarttv/users/authenticate`, {
      method: 'POST',
      body: {
        username: 'rotation@example.com',
        password: HOUSEHOLD_PASSWORD,
        deviceId: 'stb-rot-1',
        deviceName: 'Living room',
      },
    });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
    const tokens = signIn.body.tokens as { accessToken: string };
    assert.equal(kidOf(tokens.accessToken), facts.deviceKid);
    const devices = await call(`${running.clientApi}/accounts/ROT-1/devices`, { token: facts.deviceToken });
    assert.equal(devices.status, 200, JSON.stringify(devices.body));
    // API keys (hashed, not sealed) and the assistant's signing key, links of users from every phase.
    for (const [name, user] of Object.entries(facts.users)) {
      assert.equal(linkOf((await readUser(running, name)).body), user.account, name);
    }
    const delegated = await delegate(running, 'first');
    assert.equal(delegated.status, 201);
    assert.equal(kidOf(delegated.body.token), facts.assistantKid);
    // Carried keys: the same identity is the same user; a callback spent before the rotation stays spent.
    const first = facts.users.first as { identity: string; assistantId: string };
    const { data } = makeCallbackParam(running.core, { identity: first.identity, channel: 'web' });
    const again = await call(
      `${running.assistantAuth}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    );
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.assistantId, first.assistantId);
    const replay = await call(
      `${running.assistantAuth}/users/assistantid/integrated?data=${encodeURIComponent(facts.spentCallback)}`,
    );
    assert.equal(replay.status, 401);
    assert.equal(running.core.key('directline-secret').toString('base64url'), facts.directLineSecret);
    // The pending mail is delivered (the worker ran once at start) with its sealed text.
    const drop = join(String(store.env.SINTONIA_DATA_DIR), 'mail-drop', `${facts.mailId}.eml`);
    for (let tries = 0; !existsSync(drop) && tries < 100; tries += 1)
      await new Promise((r) => setTimeout(r, 100));
    assert.match(readFileSync(drop, 'utf8'), /still readable/);
    // The confirmation asked before the rotation is confirmed with its arguments.
    const confirmed = await createConfirmations(running.core, () => facts.confirmationAt + 1000).confirm(
      owner,
    );
    assert.deepEqual(confirmed?.arguments, { deviceId: 'stb-rot-1' });
  });
});
