import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { clientApiStatements } from '../../src/client-api/statements.ts';
import { renderStatements } from '../../src/core/db/statement-snapshot.ts';

describe('queries/: the snapshot of every compiled statement, per dialect', () => {
  it('is what the statement definitions compile to (npm run queries writes it)', () => {
    const files = renderStatements({ 'client-api': clientApiStatements });
    assert.deepEqual(Object.keys(files).sort(), ['client-api.postgres.sql', 'client-api.sqlite.sql']);
    for (const [name, text] of Object.entries(files)) {
      const committed = readFileSync(new URL(`../../queries/${name}`, import.meta.url), 'utf8');
      assert.equal(committed, text, `queries/${name} is stale: run npm run queries`);
    }
  });

  it('names every statement once, with an argument behind every placeholder', () => {
    const names = clientApiStatements.map((statement) => statement.name);
    assert.equal(new Set(names).size, names.length);
    const files = renderStatements({ 'client-api': clientApiStatements });
    for (const text of Object.values(files)) {
      for (const line of text.split('\n').filter((line) => line.startsWith('-- placeholders: '))) {
        assert.doesNotMatch(line, /\d+: (undefined|null|")/, line);
      }
    }
  });
});
