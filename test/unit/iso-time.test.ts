import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { exactTime, isoTime } from '../../src/core/iso-time.ts';

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

describe('exactTime (the date-time format of every request)', () => {
  it('reads every time isoTime writes back to its millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62167219200000, max: 253402300799999 }), (ms) => {
        assert.equal(exactTime(isoTime(ms)), ms);
      }),
      { numRuns: 5_000 },
    );
  });

  it('takes offsets, a space or lowercase separators, and fractions beyond the millisecond (cut)', () => {
    assert.equal(exactTime('2026-01-01T01:00:00+01:00'), Date.UTC(2026, 0, 1));
    assert.equal(exactTime('2026-01-01T01:00:00+0100'), Date.UTC(2026, 0, 1));
    assert.equal(exactTime('2026-01-01 00:00:00z'), Date.UTC(2026, 0, 1));
    assert.equal(exactTime('2026-01-01t00:00:00.123456Z'), Date.UTC(2026, 0, 1) + 123);
    assert.equal(exactTime('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
  });

  it('refuses what Date cannot hold or would read as another time', () => {
    for (const text of [
      '2026-12-31T23:59:60Z',
      '2026-06-30T23:59:60+00:00',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:00+01',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00',
      '+275761-01-01T00:00:00Z',
      '-271821-04-19T00:00:00Z',
      '20260101T000000Z',
      '',
    ]) {
      assert.equal(exactTime(text), undefined, text);
    }
  });
});
