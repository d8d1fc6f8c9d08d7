import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deserialize, Long, ObjectId, serialize } from 'bson';
import fc from 'fast-check';
import { decodeBson, encodeBson } from '../../../src/client-api/media/bson-codec.ts';
import { encodeBody } from '../../../src/client-api/media/encode.ts';
import type { JsonSchema } from '../../../src/client-api/media/schema.ts';
import { ProblemError } from '../../../src/core/errors.ts';
import { jsonValue, viaJson } from './arbitraries.ts';

const MAX_DEPTH = 32;
const noRefs = () => undefined;

function schemaFor(value: unknown): JsonSchema {
  if (Array.isArray(value)) return { type: 'array' };
  if (typeof value === 'object') return { type: 'object' };
  return { type: typeof value === 'number' ? 'number' : typeof value };
}

function refusal(type: string) {
  return (error: unknown) => error instanceof ProblemError && error.status === 400 && error.type === type;
}

/** BSON keys are C strings: a key holding NUL cannot be written by any BSON encoder. */
function bsonKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(bsonKeys);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, item]) => !key.includes('\0') && bsonKeys(item));
  }
  return true;
}

const bsonValue = jsonValue.filter((value) => value !== null && bsonKeys(value));

describe('BSON codec (ASP.NET conventions)', () => {
  it('round-trips every JSON value (but top-level null, which is "nothing")', () => {
    fc.assert(
      fc.property(bsonValue, (value) => {
        const decoded = decodeBson(encodeBson(value), schemaFor(value), noRefs, 64);
        assert.deepStrictEqual(viaJson(decoded), viaJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('wraps scalars in { Value }, keys arrays "0","1"…, and sends nothing as an empty body (read by bson itself)', () => {
    assert.deepStrictEqual(deserialize(encodeBson('abc')), { Value: 'abc' });
    assert.deepStrictEqual(deserialize(encodeBson(true)), { Value: true });
    assert.deepStrictEqual(deserialize(encodeBson(1.5)), { Value: 1.5 });
    assert.deepStrictEqual(deserialize(encodeBson([{ a: 1 }, 'x'])), { 0: { a: 1 }, 1: 'x' });
    assert.deepStrictEqual(deserialize(encodeBson({ a: [1, 2] })), { a: [1, 2] });
    assert.equal(encodeBson(undefined).length, 0);
    assert.equal(encodeBson(null).length, 0);
  });

  it('reads scalars, arrays and objects back through the body schema', () => {
    const read = (document: Record<string, unknown>, schema: JsonSchema) =>
      decodeBson(Buffer.from(serialize(document)), schema, noRefs, MAX_DEPTH);
    assert.equal(read({ Value: 'hello' }, { type: 'string' }), 'hello');
    assert.equal(read({ Value: 7 }, { type: 'integer' }), 7);
    assert.deepStrictEqual(read({ 0: 'a', 1: 'b' }, { type: 'array' }), ['a', 'b']);
    assert.deepStrictEqual(read({ at: new Date(0) }, { type: 'object' }), { at: '1970-01-01T00:00:00.000Z' });
    assert.equal(decodeBson(Buffer.alloc(0), { type: 'object' }, noRefs, MAX_DEPTH), undefined);
  });

  it('writes int64 fields as BSON int64 and keeps them exact both ways', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { id: { type: 'integer', format: 'int64' }, small: { type: 'integer' } },
    };
    const bytes = encodeBody('application/bson', schema, { id: Number.MAX_SAFE_INTEGER, small: 3 }, noRefs);
    const raw = deserialize(bytes as Buffer, { promoteLongs: false });
    assert.ok(raw.id instanceof Long);
    assert.equal(raw.id.toString(), String(Number.MAX_SAFE_INTEGER));
    assert.equal(raw.small, 3);
    assert.deepStrictEqual(decodeBson(bytes as Buffer, schema, noRefs, MAX_DEPTH), {
      id: Number.MAX_SAFE_INTEGER,
      small: 3,
    });
  });

  it('refuses an int64 beyond 2^53-1 with 400 rather than rounding it', () => {
    const bytes = Buffer.from(serialize({ id: Long.fromString('9007199254740993') }));
    assert.throws(
      () => decodeBson(bytes, { type: 'object' }, noRefs, MAX_DEPTH),
      refusal('INTEGER_OUT_OF_RANGE'),
    );
  });

  it('refuses malformed documents with 400 MALFORMED_BODY', () => {
    const good = Buffer.from(serialize({ a: 'x' }));
    const truncated = good.subarray(0, good.length - 2);
    const wrongLength = Buffer.from(good);
    wrongLength.writeInt32LE(good.length + 10, 0);
    const trailing = Buffer.concat([good, Buffer.from([0])]);
    const badType = Buffer.from([12, 0, 0, 0, 0x42, 0x61, 0, 1, 2, 3, 4, 0]);
    const badUtf8 = Buffer.from(serialize({ a: 'xy' }));
    badUtf8[badUtf8.length - 3] = 0xff;
    // A BSON type JSON has no value for.
    const objectId = Buffer.from(serialize({ a: new ObjectId() }));
    const proto = Buffer.from([0x16, 0, 0, 0, 0x10, ...Buffer.from('__proto__'), 0, 1, 0, 0, 0, 0]);
    for (const [name, bytes] of Object.entries({
      truncated,
      wrongLength,
      trailing,
      badType,
      badUtf8,
      proto,
      objectId,
      tiny: Buffer.from([1, 2]),
    })) {
      assert.throws(
        () => decodeBson(bytes, { type: 'object' }, noRefs, MAX_DEPTH),
        refusal('MALFORMED_BODY'),
        name,
      );
    }
  });

  it('refuses nesting beyond the limit with 400 BODY_TOO_DEEP, without recursing into a deep body', () => {
    let document: Record<string, unknown> = { leaf: 1 };
    for (let level = 1; level < MAX_DEPTH; level++) document = { a: document };
    assert.ok(decodeBson(Buffer.from(serialize(document)), { type: 'object' }, noRefs, MAX_DEPTH));
    const deeper = Buffer.from(serialize({ a: document }));
    assert.throws(() => decodeBson(deeper, { type: 'object' }, noRefs, MAX_DEPTH), refusal('BODY_TOO_DEEP'));
    // 20 000 levels written by hand: bson's recursive reader would overflow the stack.
    const levels = 20_000;
    const parts: Buffer[] = [];
    for (let level = 0; level < levels; level++) parts.push(Buffer.from([0, 0, 0, 0, 0x03, 0x61, 0]));
    const bomb = Buffer.concat([...parts, Buffer.from([0, 0, 0, 0, 0]), Buffer.alloc(levels, 0)]);
    // Each document's length right (level k spans all but 8k bytes), so only its depth is wrong.
    for (let level = 0; level <= levels; level++) bomb.writeInt32LE(bomb.length - 8 * level, 7 * level);
    assert.throws(() => decodeBson(bomb, { type: 'object' }, noRefs, MAX_DEPTH), refusal('BODY_TOO_DEEP'));
  });
});
