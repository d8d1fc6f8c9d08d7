import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openChangeSignal } from '../../src/core/db/change-signal.ts';

describe('change signal (the file every process of one SQLite store reads before trusting its cache)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sintonia-signal-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a new file gets a value at once, and the value holds until someone changes it', () => {
    const file = join(dir, 'new.signal');
    const signal = openChangeSignal(file);
    try {
      const first = signal.current();
      assert.ok(first >= 0);
      assert.equal(readFileSync(file).length, 6);
      assert.equal(signal.current(), first);
      assert.equal(signal.current(), first);
    } finally {
      signal.close();
    }
  });

  it('a change made through one opening is seen through every other (as by another process)', () => {
    const file = join(dir, 'shared.signal');
    const writer = openChangeSignal(file);
    const reader = openChangeSignal(file);
    try {
      const seen = new Set<number>([reader.current()]);
      for (let index = 0; index < 50; index++) {
        const before = reader.current();
        writer.change();
        const now = reader.current();
        assert.notEqual(now, before);
        assert.equal(writer.current(), now);
        seen.add(now);
      }
      // Fresh random values, not a counter two writers could both move to the same next value.
      assert.equal(seen.size, 51);
    } finally {
      writer.close();
      reader.close();
    }
  });

  it('reopening keeps the stored value; closing twice is harmless', () => {
    const file = join(dir, 'kept.signal');
    const first = openChangeSignal(file);
    first.change();
    const value = first.current();
    first.close();
    first.close();
    const again = openChangeSignal(file);
    try {
      assert.equal(again.current(), value);
    } finally {
      again.close();
    }
  });
});
