import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { testDatabase } from '../helpers/harness.ts';
import { binPath, freePort, startServe } from '../helpers/processes.ts';

const page = readFileSync(new URL('../../docs/postgresql.md', import.meta.url), 'utf8');

/**
 * The shell blocks of docs/postgresql.md's first section (before "Several processes"), in order: the role
 * and the database, the commands, the key file.
 */
function postgresBlocks(): string[][] {
  const start = page.indexOf('# Running on PostgreSQL');
  const section = page.slice(start, page.indexOf('\n## ', start));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => (match[1] ?? '').trim().split('\n'));
}

/**
 * A role and a database made as the page's first block makes them, named `name` instead of `sintonia` (the
 * run's cluster is shared), by the run's superuser (TEST_DATABASE_URL) instead of `sudo -u postgres`:
 * answers the role's address, in the page's form, and how to drop both.
 */
function makeRole(name: string) {
  const [roleBlock = []] = postgresBlocks();
  const admin = process.env.TEST_DATABASE_URL ?? '';
  const script = roleBlock
    .map((line) => line.replace(/^sudo -u postgres psql /, `psql '${admin}' `))
    .map((line) => line.replace(/\bsintonia\b/g, name))
    .join('\n');
  const made = spawnSync('bash', ['-c', `set -euo pipefail\n${script}`], { encoding: 'utf8' });
  assert.equal(made.status, 0, `${script}\n---\n${made.stdout}\n${made.stderr}`);
  const documented = /^export DATABASE_URL=(\S+)$/m.exec(postgresBlocks()[1]?.join('\n') ?? '')?.[1] ?? '';
  const url = new URL(documented);
  const { hostname, port } = new URL(admin);
  Object.assign(url, { hostname, port, pathname: `/${name}`, username: name });
  const drop = () => {
    const statements = `DROP DATABASE IF EXISTS ${name} WITH (FORCE); DROP ROLE IF EXISTS ${name};`;
    spawnSync('psql', [admin, '-c', statements], { encoding: 'utf8' });
  };
  return { url: url.toString(), drop };
}

/**
 * Runs the page's commands in a scratch folder, as written, but for three mechanical substitutions: the
 * DATABASE_URL value is the role's made by `makeRole` (on the run's cluster), `npx sintonia` is this
 * checkout's bin, and `npm start` is left for the test to start (it never returns). `useFile`: the key-file
 * block replaces the key's export line.
 */
function followPage(databaseUrl: string, folder: string, useFile: boolean) {
  const [, commands = [], fileBlock = []] = postgresBlocks();
  const lines = commands.flatMap((line) => {
    if (line.startsWith('export SINTONIA_MASTER_KEY=')) return useFile ? fileBlock : [line];
    if (line.startsWith('npm start')) return [];
    if (line.startsWith('export DATABASE_URL=')) return [`export DATABASE_URL='${databaseUrl}'`];
    return [line.replace(/^npx sintonia /, `node '${binPath}' `)];
  });
  const script = [
    'set -euo pipefail',
    ...lines,
    'echo "KEY=$(printenv SINTONIA_MASTER_KEY || true)"',
    'echo "FILE=$(printenv SINTONIA_MASTER_KEY_FILE || true)"',
  ];
  const result = spawnSync('bash', ['-c', script.join('\n')], {
    cwd: folder,
    env: { PATH: process.env.PATH, HOME: folder, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  return { ...result, script: script.join('\n') };
}

describe(`docs/postgresql.md, followed literally (${testDatabase})`, {
  skip: testDatabase !== 'postgres',
}, () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  for (const useFile of [false, true]) {
    it(`on a fresh database, with ${useFile ? 'SINTONIA_MASTER_KEY_FILE' : 'SINTONIA_MASTER_KEY'}: every step succeeds and the services serve`, async () => {
      // A fresh role and its empty database, made as the page says: nothing has opened it yet.
      const database = makeRole(`sintonia_${randomBytes(4).toString('hex')}`);
      cleanups.push(() => database.drop());
      const folder = mkdtempSync(join(tmpdir(), 'sintonia-pg-page-'));
      cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
      const ran = followPage(database.url, folder, useFile);
      assert.equal(ran.status, 0, `${ran.script}\n---\n${ran.stdout}\n${ran.stderr}`);
      const outputs = ran.stdout.trim().split('\n');
      const migrated = JSON.parse(outputs[0] ?? '');
      assert.equal(migrated.status, 'migrated');
      assert.ok(migrated.applied.length > 0);
      assert.ok(
        existsSync(join(folder, 'data', 'demo-credentials.json')),
        'seed-demo recorded its credentials',
      );
      const opsKey = JSON.parse(outputs[2] ?? '').key as string;
      assert.match(opsKey, /^snt_backoffice_/);
      const key = /^KEY=(.*)$/m.exec(ran.stdout)?.[1] ?? '';
      const file = /^FILE=(.*)$/m.exec(ran.stdout)?.[1] ?? '';
      if (useFile) {
        assert.equal(file, join(folder, 'master.key'));
        assert.equal(key, '');
      } else {
        assert.match(key, /^[0-9a-f]{64}$/);
      }
      // `npm start` with what the steps exported: it serves, and the key made by the steps works.
      const port = await freePort();
      const served = await startServe(
        ['--service', 'assistant-auth'],
        {
          DATABASE_URL: database.url,
          ...(useFile ? { SINTONIA_MASTER_KEY_FILE: file } : { SINTONIA_MASTER_KEY: key }),
          ASSISTANT_AUTH_PORT: String(port),
          SINTONIA_DATA_DIR: join(folder, 'data'),
          LOG_LEVEL: 'warn',
        },
        [`http://127.0.0.1:${port}`],
        120_000, // a ceiling for a start (migrations included) on the shared, loaded machine
      );
      cleanups.push(async () => {
        served.child.kill('SIGTERM');
        await served.exited;
      });
      const config = await fetch(`http://127.0.0.1:${port}/config`, { headers: { 'x-api-key': opsKey } });
      assert.equal(config.status, 200);
      assert.doesNotMatch(served.output(), /key file, which is for the single-process embedded store/);
    });
  }
});
