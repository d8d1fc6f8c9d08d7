import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { migrationName } from '../../src/core/db/migrator.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

/** What `npm run build` (run by scripts/test.mjs before the tests) compiles the migrator to. */
const compiledMigrator = new URL('../../dist/core/db/migrator.js', import.meta.url);

describe('migrator', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  it('names a migration by its file, source or compiled, and skips every other file', () => {
    assert.equal(migrationName('20261122080000_core.ts'), '20261122080000_core');
    assert.equal(migrationName('20261122084001_directline-answers.js'), '20261122084001_directline-answers');
    for (const other of [
      '20261122080000_core.d.ts',
      '20261122080000_core.js.map',
      'notes.ts',
      '2026_core.ts',
    ])
      assert.equal(migrationName(other), undefined, other);
  });

  it('the compiled migrator finds every migration the sources applied, under the same names', async () => {
    assert.ok(existsSync(compiledMigrator), 'dist/ is missing: run `npm run build`');
    const compiled = (await import(pathToFileURL(compiledMigrator.pathname).href)) as {
      migrateToLatest(db: unknown): Promise<string[]>;
    };
    // A store that lists a migration the provider cannot find makes Kysely refuse to migrate at all.
    assert.deepEqual(await compiled.migrateToLatest(core.database.db), []);
  });
});
