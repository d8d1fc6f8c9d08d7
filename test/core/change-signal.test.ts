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

  it('currentThisTurn reads once for every ask of one turn, and sees a change made before the turn ends', async () => {
    const file = join(dir, 'turn.signal');
    const reader = openChangeSignal(file);
    const writer = openChangeSignal(file);
    try {
      const before = reader.current();
      const asks = [reader.currentThisTurn(), reader.currentThisTurn()];
      // Changed after the asks but before the check phase: the asks must see the new value.
      writer.change();
      const [first, second] = await Promise.all(asks);
      assert.equal(first, second);
      assert.notEqual(first, before);
      assert.equal(first, writer.current());
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('currentThisTurn rejects when the signal can no longer be read', async () => {
    const signal = openChangeSignal(join(dir, 'closed.signal'));
    const ask = signal.currentThisTurn();
    signal.close();
    await assert.rejects(ask, /EBADF/);
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
