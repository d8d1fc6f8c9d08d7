import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createTestDatabase, testDatabase } from '../helpers/harness.ts';
import { binPath, freePort, startServe } from '../helpers/processes.ts';

const page = readFileSync(new URL('../../docs/postgresql.md', import.meta.url), 'utf8');

/** The shell blocks of docs/postgresql.md's first section (before "Several processes"), in order. */
function postgresBlocks(): string[][] {
  const start = page.indexOf('# Running on PostgreSQL');
  const section = page.slice(start, page.indexOf('\n## ', start));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => (match[1] ?? '').trim().split('\n'));
}

/**
 * Runs the page's commands in a scratch folder, as written, but for three mechanical substitutions: the
 * DATABASE_URL value is the fresh database's, `npx sintonia` is this checkout's bin, and `npm start` is left
 * for the test to start (it never returns). `useFile`: the key-file block replaces the key's export line.
 */
function followPage(databaseUrl: string, folder: string, useFile: boolean) {
  const [commands = [], fileBlock = []] = postgresBlocks();
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
      // A fresh, empty database: nothing has opened it yet.
      const database = await createTestDatabase();
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
