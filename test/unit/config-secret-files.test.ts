import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ConfigError,
  configSchema,
  describeConfig,
  loadConfig,
  secretFileOf,
} from '../../src/core/config.ts';

const folder = mkdtempSync(join(tmpdir(), 'sintonia-secret-files-'));
const write = (name: string, text: string) => {
  const path = join(folder, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
const key = () => randomBytes(32).toString('hex');

/** The message of the ConfigError loadConfig throws for env. */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

/** Every variable marked secret in the schema. */
const secrets = Object.entries(
  (configSchema as unknown as { properties: Record<string, { secret?: boolean }> }).properties,
)
  .filter(([, property]) => property.secret === true)
  .map(([name]) => name);

describe('secret variables read from files (NAME_FILE)', () => {
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('every secret of the configuration can come from a file', () => {
    assert.deepEqual(secrets.sort(), [
      'ASSISTANT_RUNTIME_KEY',
      'DATABASE_URL',
      'DIRECTLINE_SECRET',
      'GATEWAY_CALLBACK_KEY',
      'MODEL_API_KEY',
      'SIGNING_KEYS_SECRET',
      'SINTONIA_MASTER_KEY',
      'SINTONIA_MASTER_KEY_PREVIOUS',
      'SMTP_PASSWORD',
      'SMTP_URL',
    ]);
    const rows = describeConfig().map((row) => row.name);
    for (const name of secrets) {
      assert.equal(rows[rows.indexOf(name) + 1], `${name}_FILE`, `${name}_FILE follows ${name} in the table`);
    }
  });

  it('reads the value from the file, one trailing newline stripped, and remembers the file', () => {
    const master = key();
    const masterFile = write('master', `${master}\n`);
    const urlFile = write('database-url', 'postgres://u:p@db.example:5432/s\r\n');
    const modelFile = write('model', 'sk-abc');
    const config = loadConfig({
      SINTONIA_MASTER_KEY_FILE: masterFile,
      DATABASE_URL_FILE: urlFile,
      MODEL_API_KEY_FILE: modelFile,
    });
    assert.equal(config.SINTONIA_MASTER_KEY, master);
    assert.equal(config.DATABASE_URL, 'postgres://u:p@db.example:5432/s');
    assert.equal(config.MODEL_API_KEY, 'sk-abc');
    assert.equal(secretFileOf(config, 'SINTONIA_MASTER_KEY'), masterFile);
    assert.equal(secretFileOf(config, 'MODEL_NAME'), undefined);
    // Only one newline goes: a value that really ends in a space or a second newline is kept as written.
    const two = write('two-newlines', 'secret\n\n');
    assert.equal(loadConfig({ DIRECTLINE_SECRET_FILE: two }).DIRECTLINE_SECRET, 'secret\n');
  });

  it('both the variable and its file set is an error naming both', () => {
    const message = refusal({ SINTONIA_MASTER_KEY: key(), SINTONIA_MASTER_KEY_FILE: write('k2', key()) });
    assert.match(message, /SINTONIA_MASTER_KEY and SINTONIA_MASTER_KEY_FILE are both set/);
    assert.match(
      refusal({ SMTP_PASSWORD: 'x', SMTP_PASSWORD_FILE: write('p', 'y'), SMTP_URL: 'smtp://me@h:25' }),
      /SMTP_PASSWORD and SMTP_PASSWORD_FILE are both set/,
    );
  });

  it('an unreadable, missing or empty file is an error naming the variable and the path', () => {
    const missing = join(folder, 'nope');
    assert.match(
      refusal({ DATABASE_URL_FILE: missing }),
      new RegExp(`DATABASE_URL_FILE="${missing}": cannot read the file \\(ENOENT\\)`),
    );
    assert.match(
      refusal({ DATABASE_URL_FILE: folder }),
      /DATABASE_URL_FILE=.*cannot read the file \(EISDIR\)/,
    );
    if (process.getuid?.() !== 0) {
      const locked = write('locked', key());
      chmodSync(locked, 0o000);
      assert.match(refusal({ SINTONIA_MASTER_KEY_FILE: locked }), /SINTONIA_MASTER_KEY_FILE=.*\(EACCES\)/);
    }
    assert.match(
      refusal({ MODEL_API_KEY_FILE: write('empty', '\n') }),
      /MODEL_API_KEY_FILE=.*the file is empty/,
    );
  });

  it('a bad value from a file is named by its file, never printed', () => {
    const bad = write('bad-key', 'not-a-key-at-all\n');
    const message = refusal({ SINTONIA_MASTER_KEY_FILE: bad });
    assert.match(message, new RegExp(`SINTONIA_MASTER_KEY \\(from SINTONIA_MASTER_KEY_FILE="${bad}"\\)`));
    assert.doesNotMatch(message, /not-a-key-at-all/);
    // From the variable itself, a secret is not printed either; a URL shows with its password masked.
    assert.doesNotMatch(refusal({ GATEWAY_CALLBACK_KEY: 'hunter2' }), /hunter2/);
    const url = refusal({ DATABASE_URL: 'mysql://me:hunter2@db/x' });
    assert.match(url, /DATABASE_URL="mysql:\/\/me:\*\*\*@db\/x"/);
    assert.doesNotMatch(url, /hunter2/);
  });

  it('SINTONIA_MASTER_KEY_PREVIOUS needs SINTONIA_MASTER_KEY; SMTP_PASSWORD needs an SMTP_URL user', () => {
    assert.match(
      refusal({ SINTONIA_MASTER_KEY_PREVIOUS_FILE: write('previous', key()) }),
      /SINTONIA_MASTER_KEY_PREVIOUS is set without SINTONIA_MASTER_KEY/,
    );
    assert.match(refusal({ SMTP_PASSWORD: 'x' }), /SMTP_PASSWORD is set without an SMTP_URL/);
    assert.match(
      refusal({ SMTP_PASSWORD: 'x', SMTP_URL: 'smtp://mail.example:587' }),
      /SMTP_PASSWORD is set without an SMTP_URL that names its user/,
    );
    assert.equal(
      loadConfig({ SMTP_PASSWORD: 'x', SMTP_URL: 'smtp://me@mail.example:587' }).SMTP_PASSWORD,
      'x',
    );
  });
});
