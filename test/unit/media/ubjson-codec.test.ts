import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode as referenceDecode, encode as referenceEncode } from '@shelacek/ubjson';
import fc from 'fast-check';
import { decodeUbjson, encodeUbjson } from '../../../src/client-api/media/ubjson-codec.ts';
import { ProblemError } from '../../../src/core/errors.ts';
import { jsonValue, viaJson } from './arbitraries.ts';

const MAX_DEPTH = 32;

/** The reference decoder refuses int64 by default; read it as a number like ours does. */
function referenceRead(bytes: Buffer): unknown {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return referenceDecode(buffer as ArrayBuffer, {
    int64Handling: (storage, offset) => Number(storage.view.getBigInt64(offset)),
  });
}

function ours(bytes: number[] | Buffer | ArrayBuffer): unknown {
  const buffer = Array.isArray(bytes)
    ? Buffer.from(bytes)
    : Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(new Uint8Array(bytes));
  return decodeUbjson(buffer, MAX_DEPTH);
}

function refusal(type: string) {
  return (error: unknown) => error instanceof ProblemError && error.status === 400 && error.type === type;
}

const text = (value: string) => [...Buffer.from(value)];

describe('UBJSON codec', () => {
  it('round-trips every JSON value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        assert.deepStrictEqual(viaJson(ours(encodeUbjson(value))), viaJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('writes what an independent decoder (@shelacek/ubjson) reads back as the same value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        assert.deepStrictEqual(viaJson(referenceRead(encodeUbjson(value))), viaJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('reads what the independent encoder writes, plain and with optimised $/# containers', () => {
    for (const options of [
      { optimizeArrays: false, optimizeObjects: false },
      { optimizeArrays: true, optimizeObjects: true },
    ]) {
      fc.assert(
        fc.property(jsonValue, (value) => {
          assert.deepStrictEqual(viaJson(ours(referenceEncode(value, options))), viaJson(value));
        }),
        { numRuns: 200 },
      );
    }
  });

  it('uses the smallest integer type and float64 for the rest', () => {
    assert.deepStrictEqual([...encodeUbjson(5)], [0x69, 5]);
    assert.deepStrictEqual([...encodeUbjson(200)], [0x55, 200]);
    assert.deepStrictEqual([...encodeUbjson(-300)], [0x49, 0xfe, 0xd4]);
    assert.deepStrictEqual([...encodeUbjson(70000)], [0x6c, 0, 1, 0x11, 0x70]);
    assert.deepStrictEqual([...encodeUbjson(2 ** 40)], [0x4c, 0, 0, 1, 0, 0, 0, 0, 0]);
    assert.equal(encodeUbjson(0.5)[0], 0x44);
    assert.deepStrictEqual(
      [...encodeUbjson({ a: 'é' })],
      [0x7b, 0x69, 1, 0x61, 0x53, 0x69, 2, 0xc3, 0xa9, 0x7d],
    );
    assert.equal(encodeUbjson(undefined).length, 0);
  });

  it('keeps int64 exact up to 2^53-1 and refuses beyond, never rounding', () => {
    assert.equal(ours(encodeUbjson(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
    assert.equal(ours(encodeUbjson(-Number.MAX_SAFE_INTEGER)), -Number.MAX_SAFE_INTEGER);
    const beyond = Buffer.alloc(9);
    beyond[0] = 0x4c;
    beyond.writeBigInt64BE(2n ** 53n + 1n, 1);
    assert.throws(() => ours(beyond), refusal('INTEGER_OUT_OF_RANGE'));
    assert.throws(() => ours([0x48, 0x69, 16, ...text('9007199254740993')]), refusal('INTEGER_OUT_OF_RANGE'));
    assert.equal(ours([0x48, 0x69, 4, ...text('1.25')]), 1.25);
  });

  it('reads typed and counted containers, chars, float32 and no-ops', () => {
    // [$i#i3 1 2 3]
    assert.deepStrictEqual(ours([0x5b, 0x24, 0x69, 0x23, 0x69, 3, 1, 2, 3]), [1, 2, 3]);
    // [#i2 T Z]
    assert.deepStrictEqual(ours([0x5b, 0x23, 0x69, 2, 0x54, 0x5a]), [true, null]);
    // {$S#i1 a "xy"}
    assert.deepStrictEqual(ours([0x7b, 0x24, 0x53, 0x23, 0x69, 1, 0x69, 1, 0x61, 0x69, 2, 0x78, 0x79]), {
      a: 'xy',
    });
    // [$T#i2]: zero-size elements
    assert.deepStrictEqual(ours([0x5b, 0x24, 0x54, 0x23, 0x69, 2]), [true, true]);
    // [N C'a' d1.5 N]
    assert.deepStrictEqual(ours([0x5b, 0x4e, 0x43, 0x61, 0x64, 0x3f, 0xc0, 0, 0, 0x4e, 0x5d]), ['a', 1.5]);
    assert.equal(ours([]), undefined);
  });

  it('refuses malformed input with 400 MALFORMED_BODY', () => {
    const cases: number[][] = [
      [0x5b, 0x69], // truncated
      [0x7b, 0x69, 1, 0x61], // object without value or end
      [0x51], // unknown marker
      [0x53, 0x69, 5, 0x61], // string shorter than its length
      [0x53, 0x69, 2, 0xc3, 0x28], // invalid UTF-8 continuation
      [0x53, 0x69, 2, 0xc0, 0x80], // overlong NUL
      [0x53, 0x69, 3, 0xed, 0xa0, 0x80], // UTF-16 surrogate in UTF-8
      [0x53, 0x69, 4, 0xf5, 0x80, 0x80, 0x80], // beyond U+10FFFF
      [0x53, 0x69, 2, 0xe2, 0x82], // truncated sequence
      [0x69, 1, 0x69, 2], // two values
      [0x5b, 0x24, 0x69, 0x69], // typed container without count
      [0x5b, 0x23, 0x6c, 0x7f, 0xff, 0xff, 0xff], // count far beyond the body
      [0x53, 0x49, 0xff, 0xff], // negative length
      [0x7b, 0x69, 9, ...text('__proto__'), 0x5a, 0x7d], // prototype key
    ];
    for (const bytes of cases)
      assert.throws(() => ours(bytes), refusal('MALFORMED_BODY'), `case ${bytes.join(',')}`);
  });

  it('refuses nesting beyond the limit with 400 BODY_TOO_DEEP', () => {
    const deep = Buffer.from([...Array(MAX_DEPTH + 1).fill(0x5b), ...Array(MAX_DEPTH + 1).fill(0x5d)]);
    assert.throws(() => ours(deep), refusal('BODY_TOO_DEEP'));
    const limit = Buffer.from([...Array(MAX_DEPTH).fill(0x5b), ...Array(MAX_DEPTH).fill(0x5d)]);
    assert.ok(Array.isArray(ours(limit)));
    const bomb = Buffer.from(Array(100_000).fill(0x5b));
    assert.throws(() => ours(bomb), refusal('BODY_TOO_DEEP'));
  });
});
