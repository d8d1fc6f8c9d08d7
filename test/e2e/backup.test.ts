import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../../src/core/config.ts';
import { openCore } from '../../src/core/core.ts';
import { startFamily } from '../../src/family.ts';
import { type Env, startTestFamily, type TestCore, testDatabase } from '../helpers/harness.ts';
import { HOUSEHOLD_PASSWORD, householdAccount } from '../helpers/household.ts';
import { binPath, runCli } from '../helpers/processes.ts';

/** `sintonia backup` in a child process, as an operator runs it. */
const backup = (args: string[], env: Env) => runCli(['backup', ...args], env);

async function signIn(clientApi: string, deviceId: string): Promise<string> {
  const response = await fetch(`${clientApi}/auth/smarttv/users/authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: 'backup@example.com',
      password: HOUSEHOLD_PASSWORD,
      deviceId,
      deviceName: 'TV',
    }),
  });
  const body = (await response.json()) as { tokens: { accessToken: string } };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.tokens.accessToken;
}

describe(`sintonia backup (${testDatabase})`, () => {
  let running: Awaited<ReturnType<typeof startTestFamily>>;
  let core: TestCore;
  let clientApi: string;
  let userHash: string;
  const scratch = mkdtempSync(join(tmpdir(), 'sintonia-backup-'));

  before(async () => {
    running = await startTestFamily(['client-api']);
    core = running.core;
    clientApi = `${core.serviceUrl('client-api')}/api/v1`;
    userHash = await householdAccount(core, { accountNumber: 'BK-1', email: 'backup@example.com' });
  });
  after(async () => {
    await running.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses without --out, with an extra argument, or onto an existing file (exit 2)', async () => {
    for (const args of [[], ['--out'], ['--out', join(scratch, 'a'), 'extra'], ['--out', binPath]]) {
      const result = await backup(args, core.env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
    }
  });

  it('on PostgreSQL: refused with a message pointing at pg_dump', {
    skip: testDatabase !== 'postgres',
  }, async () => {
    const result = await backup(['--out', join(scratch, 'pg.sqlite')], core.env);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /PostgreSQL \(DATABASE_URL\): back it up with pg_dump/);
    assert.equal(existsSync(join(scratch, 'pg.sqlite')), false);
  });

  it('a copy taken under write load restores to a store that serves every write acknowledged before it began', {
    skip: testDatabase !== 'sqlite',
  }, async () => {
    const token = await signIn(clientApi, 'tv-backup');
    // A long reader (another connection in an open read transaction) keeps every later write in the
    // write-ahead log, out of the main file: a copy of the file alone would lose them all.
    const reader = new SQLite(core.database.location, { readonly: true });
    reader.prepare('begin').run();
    reader.prepare('select count(*) from store_identity').get();
    const save = (contentId: number) =>
      fetch(`${clientApi}/smarttv/tv-backup/users/${userHash}/bookmarks/${contentId}/${contentId % 3600}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }).then((response) => response.status);
    // Writes go on, one after another, before and while the backup runs (at most 3000 of them).
    const acknowledged: number[] = [];
    let backupStarted = false;
    let acknowledgedBeforeBackup = -1;
    let stop = false;
    const writer = (async () => {
      for (let contentId = 1; contentId <= 3000 && !stop; contentId += 1) {
        const status = await save(contentId);
        assert.equal(status, 200, `save ${contentId}`);
        acknowledged.push(contentId);
        if (contentId === 50) {
          backupStarted = true;
          acknowledgedBeforeBackup = acknowledged.length;
        }
      }
    })();
    while (!backupStarted) await new Promise((resolve) => setTimeout(resolve, 5));
    const out = join(scratch, 'copy.sqlite');
    const result = await backup(['--out', out], core.env);
    const writesDuring = acknowledged.length - acknowledgedBeforeBackup;
    reader.prepare('commit').run();
    reader.close();
    stop = true;
    await writer;
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.file, out);
    assert.ok(report.bytes > 0);
    assert.match(report.masterKeyFingerprint, /^[0-9a-f]{64}$/);
    assert.ok(writesDuring > 0, 'the service answered writes while the backup ran');

    // Restore: the copy as the store of a new data folder, with the same master key.
    const restoredDir = mkdtempSync(join(tmpdir(), 'sintonia-restored-'));
    copyFileSync(out, join(restoredDir, 'sintonia.sqlite'));
    const restored = await openCore(
      loadConfig({ ...core.env, SINTONIA_DATA_DIR: restoredDir } as NodeJS.ProcessEnv),
    );
    const family = await startFamily(restored, ['client-api']);
    try {
      const restoredApi = `${restored.serviceUrl('client-api')}/api/v1`;
      // The device's token from before the backup verifies (the signing key came along), and a new sign-in works.
      await signIn(restoredApi, 'tv-restored');
      const read = (contentId: number) =>
        fetch(`${restoredApi}/smarttv/users/${userHash}/bookmarks/${contentId}`, {
          headers: { authorization: `Bearer ${token}` },
        });
      for (const contentId of acknowledged.slice(0, acknowledgedBeforeBackup)) {
        const response = await read(contentId);
        assert.equal(response.status, 200, `bookmark ${contentId} acknowledged before the backup`);
        assert.equal(((await response.json()) as { offset: number }).offset, contentId % 3600);
      }
      // The copy is one moment of the store: of the writes acknowledged while the backup ran, it holds
      // those before some point and none after it.
      const held: boolean[] = [];
      for (const contentId of acknowledged.slice(acknowledgedBeforeBackup)) {
        held.push((await read(contentId)).status === 200);
      }
      const firstMissing = held.indexOf(false);
      if (firstMissing >= 0) assert.ok(!held.slice(firstMissing).includes(true), 'a prefix of the writes');
    } finally {
      await family.close();
      await restored.close();
      rmSync(restoredDir, { recursive: true, force: true });
    }
    // The master key is not in the copy: another key is refused on the restored store.
    const wrongKeyDir = mkdtempSync(join(tmpdir(), 'sintonia-restored-'));
    copyFileSync(out, join(wrongKeyDir, 'sintonia.sqlite'));
    const refused = await runCli(['key', 'list'], {
      ...core.env,
      SINTONIA_DATA_DIR: wrongKeyDir,
      SINTONIA_MASTER_KEY: '0'.repeat(64),
    });
    rmSync(wrongKeyDir, { recursive: true, force: true });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refusing to start/);
  });
});
