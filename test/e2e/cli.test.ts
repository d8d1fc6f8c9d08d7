import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';

describe('sintonia CLI', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  it('migrates the configured database', async () => {
    const result = await runCli(['migrate'], core.env);
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout);
    assert.equal(answer.database, core.database.dialect);
    assert.deepEqual(answer.applied, []);
  });

  it('creates, lists and revokes keys; a revoked key is refused at once', async () => {
    const created = await runCli(['key', 'create', '--class', 'gateway', '--name', 'partner'], core.env);
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    assert.deepEqual(Object.keys(key).sort(), ['class', 'id', 'key']);
    assert.equal(key.class, 'gateway');
    assert.ok(await core.apiKeys.verify(key.key), 'the printed key works in the service');

    const listed = JSON.parse((await runCli(['key', 'list'], core.env)).stdout);
    const entry = listed.keys.find((row: { id: string }) => row.id === key.id);
    assert.equal(entry.name, 'partner');
    assert.ok(!JSON.stringify(listed).includes(key.key.slice(-20)), 'list never shows a secret');

    const revoked = await runCli(['key', 'revoke', key.id], core.env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.deepEqual(JSON.parse(revoked.stdout), { id: key.id, revoked: true });
    assert.equal(await core.apiKeys.verify(key.key), undefined);
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const badClass = await runCli(['key', 'create', '--class', 'root', '--name', 'x'], core.env);
    assert.equal(badClass.code, 2);
    assert.match(badClass.stderr, /--class must be one of runtime, gateway, client, backoffice/);
    assert.equal(badClass.stdout, '');
    const missing = await runCli(['key', 'create', '--class', 'client'], core.env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--name is required/);
    const unknownKey = await runCli(['key', 'revoke', 'ffffffffffffffff'], core.env);
    assert.notEqual(unknownKey.code, 0);
    assert.match(unknownKey.stderr, /no API key with id ffffffffffffffff/);
    const unknownCommand = await runCli(['frobnicate'], core.env);
    assert.equal(unknownCommand.code, 2);
    assert.match(unknownCommand.stderr, /unknown command/);
  });

  it('stops with exit 1 naming a bad variable', async () => {
    const result = await runCli(['serve'], { ...core.env, CLIENT_API_PORT: 'abc' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /CLIENT_API_PORT="abc"/);
  });

  it('--help prints the command’s usage, exits 0 and does nothing else', async () => {
    const before = JSON.parse((await runCli(['key', 'list'], core.env)).stdout).keys.length;
    const help = await runCli(['seed-demo', '--help'], core.env);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^usage: sintonia seed-demo\n/);
    const after = JSON.parse((await runCli(['key', 'list'], core.env)).stdout).keys.length;
    assert.equal(after, before, 'no demo keys were minted');
    const migrateHelp = await runCli(['migrate', '-h'], core.env);
    assert.equal(migrateHelp.code, 0);
    assert.match(migrateHelp.stdout, /--dry-run/);
  });

  it('--version prints the package version; a command group alone prints its usage on stderr, exit 2', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const printed = await runCli(['--version'], core.env);
    assert.deepEqual([printed.code, printed.stdout, printed.stderr], [0, `sintonia ${version}\n`, '']);
    const group = await runCli(['key'], core.env);
    assert.equal(group.code, 2);
    assert.equal(group.stdout, '');
    assert.match(group.stderr, /^sintonia key: a subcommand is missing\nusage: sintonia key SUBCOMMAND/);
    for (const command of ['key create --class', 'key list', 'key revoke ID'])
      assert.ok(group.stderr.includes(command), command);
    const unknown = await runCli(['key', 'rename'], core.env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^sintonia key: unknown subcommand "rename"/);
    const help = await runCli(['key', '--help'], core.env);
    assert.deepEqual([help.code, help.stderr], [0, '']);
    assert.match(help.stdout, /^usage: sintonia key SUBCOMMAND/);
    const nothing = await runCli([], core.env);
    assert.deepEqual([nothing.code, nothing.stdout], [2, '']);
    assert.match(nothing.stderr, /^usage: sintonia COMMAND/);
  });

  it('refuses what it does not understand: an unknown flag, an extra argument or a repeated flag, exit 2', async () => {
    for (const args of [
      ['key', 'list', 'extra'],
      ['migrate', '--bogus'],
      ['seed-demo', 'now'],
      ['key', 'revoke', 'a', 'b'],
      ['key', 'create', '--class', 'client', '--name', 'a', '--name', 'b'],
      ['migrate', '--dry-run', '--dry-run'],
    ]) {
      const refused = await runCli(args, core.env);
      assert.equal(refused.code, 2, args.join(' '));
      assert.match(
        refused.stderr,
        /unexpected argument|Unknown option|is given more than once/,
        args.join(' '),
      );
      assert.equal(refused.stdout, '', args.join(' '));
    }
  });

  it('on an empty store: migrate --dry-run lists every migration and applies none; migrate reports what it applied', async () => {
    const store = await emptyStore(core.env);
    try {
      const dry = await runCli(['migrate', '--dry-run'], store.env);
      assert.equal(dry.code, 0, dry.stderr);
      const planned = JSON.parse(dry.stdout);
      assert.ok(planned.pending.length > 0);
      assert.deepEqual(planned.applied, []);
      assert.equal(planned.status, 'pending');
      const stillEmpty = JSON.parse((await runCli(['migrate', '--dry-run'], store.env)).stdout);
      assert.deepEqual(stillEmpty.pending, planned.pending, 'the dry run applied nothing');
      const migrated = JSON.parse((await runCli(['migrate'], store.env)).stdout);
      assert.deepEqual(migrated.applied, planned.pending);
      assert.equal(migrated.status, 'migrated');
      const again = JSON.parse((await runCli(['migrate'], store.env)).stdout);
      assert.deepEqual([again.applied, again.status], [[], 'up to date']);
    } finally {
      await store.remove();
    }
  });
});

/** A store no process has opened yet, of the run's kind (a fresh folder, or a fresh PostgreSQL database). */
async function emptyStore(env: Record<string, string | undefined>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sintonia-empty-'));
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!env.DATABASE_URL || !adminUrl) {
    return {
      env: { ...env, DATABASE_URL: '', SINTONIA_DATA_DIR: dataDir },
      remove: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { ...env, DATABASE_URL: url.toString(), SINTONIA_DATA_DIR: dataDir },
    remove: async () => {
      await admin(`drop database if exists ${name} with (force)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
