import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, describeConfig, loadConfig } from '../../src/core/config.ts';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.CLIENT_API_PORT, 8080);
    assert.equal(config.ASSISTANT_AUTH_PORT, 8081);
    assert.equal(config.AGENTS_PORT, 8082);
    assert.equal(config.HOST, '127.0.0.1');
    assert.equal(config.SINTONIA_DATA_DIR, './data');
    assert.equal(config.LOG_LEVEL, 'info');
    assert.equal(config.CLIENT_API_BASE_PATH, '/api/v1');
    assert.equal(config.DATABASE_URL, undefined);
  });

  it('converts numbers and treats empty values as unset', () => {
    const config = loadConfig({ CLIENT_API_PORT: '9000', DATABASE_URL: '', MAX_DEVICES_PER_ACCOUNT: '3' });
    assert.equal(config.CLIENT_API_PORT, 9000);
    assert.equal(config.MAX_DEVICES_PER_ACCOUNT, 3);
    assert.equal(config.DATABASE_URL, undefined);
  });

  it('names every bad variable', () => {
    assert.throws(
      () => loadConfig({ CLIENT_API_PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /CLIENT_API_PORT="abc"/);
        assert.match(error.message, /LOG_LEVEL="loud"/);
        assert.match(error.message, /DATABASE_URL="mysql:\/\/x"/);
        return true;
      },
    );
  });

  it('refuses out-of-range ports and malformed keys', () => {
    assert.throws(() => loadConfig({ AGENTS_PORT: '70000' }), /AGENTS_PORT/);
    assert.throws(() => loadConfig({ SINTONIA_MASTER_KEY: 'short' }), /SINTONIA_MASTER_KEY/);
  });

  it('describes every variable for the README', () => {
    const rows = describeConfig();
    assert.ok(rows.length > 20);
    for (const row of rows) assert.ok(row.description.length > 0, `${row.name} has no description`);
  });
});
