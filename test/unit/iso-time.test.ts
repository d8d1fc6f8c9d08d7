import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isoTime } from '../../src/core/iso-time.ts';

describe('isoTime', () => {
  it('writes what Date#toISOString writes, for every time Date can hold', () => {
    const dateRange = 8.64e15;
    fc.assert(
      fc.property(fc.integer({ min: -dateRange, max: dateRange }), (ms) => {
        assert.equal(isoTime(ms), new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('is exact at the edges: epoch, leap days, centuries, year 0 and 9999, the last millisecond of a day', () => {
    for (const text of [
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2000-02-29T12:34:56.789Z',
      '1900-03-01T00:00:00.000Z',
      '2100-02-28T23:59:59.999Z',
      '2024-12-31T23:59:59.999Z',
      '0000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '0999-06-15T01:02:03.004Z',
    ]) {
      const ms = Date.parse(text);
      assert.equal(isoTime(ms), text);
    }
    // Outside four-digit years, and for fractions of a millisecond, Date's own answer.
    for (const ms of [253402300800000, -62167219200001, 1.5])
      assert.equal(isoTime(ms), new Date(ms).toISOString());
  });
});
