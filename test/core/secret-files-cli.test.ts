import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type Env, type TestCore, testDatabase } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';

describe(`secrets from files, through the CLI (${testDatabase})`, () => {
  let core: TestCore;
  let fromFiles: Env;
  before(async () => {
    core = await createTestCore();
    const folder = String(core.env.SINTONIA_DATA_DIR);
    const keyFile = join(folder, 'master-key');
    writeFileSync(keyFile, `${core.env.SINTONIA_MASTER_KEY}\n`, { mode: 0o600 });
    fromFiles = { ...core.env, SINTONIA_MASTER_KEY: undefined, SINTONIA_MASTER_KEY_FILE: keyFile };
    if (core.env.DATABASE_URL) {
      const urlFile = join(folder, 'database-url');
      writeFileSync(urlFile, `${core.env.DATABASE_URL}\n`, { mode: 0o600 });
      Object.assign(fromFiles, { DATABASE_URL: undefined, DATABASE_URL_FILE: urlFile });
    }
  });
  after(() => core.dispose());

  it('the master key (and DATABASE_URL on PostgreSQL) from files open the same store', async () => {
    await core.apiKeys.create('client', 'made-with-the-variable');
    const listed = await runCli(['key', 'list'], fromFiles);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      JSON.parse(listed.stdout).keys.map((key: { name: string }) => key.name),
      ['made-with-the-variable'],
    );
  });

  it('a variable and its file both set, or a missing file, stop the command (exit 1) naming them', async () => {
    const both = await runCli(['key', 'list'], {
      ...fromFiles,
      SINTONIA_MASTER_KEY: core.env.SINTONIA_MASTER_KEY,
    });
    assert.equal(both.code, 1);
    assert.match(both.stderr, /SINTONIA_MASTER_KEY and SINTONIA_MASTER_KEY_FILE are both set/);
    assert.equal(both.stdout, '');
    const missing = await runCli(['key', 'list'], {
      ...fromFiles,
      SINTONIA_MASTER_KEY_FILE: '/nonexistent/key',
    });
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /SINTONIA_MASTER_KEY_FILE="\/nonexistent\/key": cannot read the file \(ENOENT\)/,
    );
  });

  it('a file holding another key is refused as the variable would be, naming the file', async () => {
    const other = join(String(core.env.SINTONIA_DATA_DIR), 'other-key');
    writeFileSync(other, `${'ab'.repeat(32)}\n`);
    const refused = await runCli(['key', 'list'], { ...fromFiles, SINTONIA_MASTER_KEY_FILE: other });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /SINTONIA_MASTER_KEY \(from SINTONIA_MASTER_KEY_FILE=.*other-key\) is not the master key/,
    );
    assert.match(refused.stderr, /refusing to start/);
  });
});
