import { BSONError, deserialize, Long, serialize } from 'bson';
import { httpErrors } from '../../core/errors.ts';
import { mediaErrors } from './errors.ts';
import { deref, type JsonSchema, mainType, nonNullBranch, type SchemaResolver } from './schema.ts';

/**
 * BSON with the conventions of ASP.NET's BSON formatter: the top level is always a
 * document — a scalar travels as `{ "Value": … }`, an array as a document keyed "0", "1", …, nothing as
 * an empty body. Request bodies are read back the same way, guided by the route's body schema.
 *
 * Numbers: fields whose schema says `format: 'int64'` are written as BSON int64 (a Long), so .NET and
 * driver clients see a 64-bit integer; other integers go as int32 when they fit, else as double (exact up
 * to 2^53). On input every int64 is read as a bigint and turned into a number when it is within 2^53-1;
 * beyond that the body is refused (400 INTEGER_OUT_OF_RANGE) rather than rounded.
 */

export const bsonInt64 = (value: number): unknown => Long.fromNumber(value);

/** Encodes the projected response data. */
export function encodeBson(value: unknown): Buffer {
  if (value === undefined || value === null) return Buffer.alloc(0);
  let document: Record<string, unknown>;
  if (Array.isArray(value)) {
    document = {};
    for (let index = 0; index < value.length; index++) document[String(index)] = value[index];
  } else if (typeof value === 'object' && !(value instanceof Long)) {
    document = value as Record<string, unknown>;
  } else {
    document = { Value: value };
  }
  return Buffer.from(serialize(document, { ignoreUndefined: true }));
}

function malformed(detail: string): Error {
  return httpErrors.MALFORMED_BODY(`The BSON body could not be read: ${detail}.`);
}

/** Element sizes of the fixed-width BSON types (type byte → bytes after the key). */
const fixedSizes: Record<number, number> = {
  1: 8,
  6: 0,
  7: 12,
  8: 1,
  9: 8,
  10: 0,
  16: 4,
  17: 8,
  18: 8,
  19: 16,
  127: 0,
  255: 0,
};

/**
 * Walks the element headers without recursion, so a deeply nested body is refused with 400 before the
 * (recursive) bson parser could exhaust the stack. Every length read from the body is checked before it
 * moves the offset: not negative, not past the end, so each step advances and the walk always ends.
 */
export function checkBsonDepth(bytes: Buffer, maxDepth: number): void {
  let offset = 4;
  let depth = 1;
  const end = bytes.length;
  /**
   * Reads the int32 length at the offset and answers how many bytes the element's value spans from there.
   * `prefixIncluded` says whether the length counts its own four bytes (documents, code with scope).
   */
  const span = (minimum: number, prefixIncluded: boolean): number => {
    if (offset + 4 > end) throw malformed('unexpected end of body');
    const value = bytes.readInt32LE(offset);
    const total = prefixIncluded ? value : value + 4;
    if (value < minimum || total > end - offset) throw malformed('a length is out of range');
    return total;
  };
  const skip = (count: number): void => {
    if (count > end - offset) throw malformed('unexpected end of body');
    offset += count;
  };
  while (offset < end) {
    const type = bytes[offset++] as number;
    if (type === 0) {
      depth--;
      if (depth === 0) return;
      continue;
    }
    const keyEnd = bytes.indexOf(0, offset);
    if (keyEnd === -1) throw malformed('unterminated key');
    offset = keyEnd + 1;
    if (type === 0x03 || type === 0x04) {
      depth++;
      if (depth > maxDepth) throw mediaErrors.BODY_TOO_DEEP();
      // Its elements are walked next, so its length moves nothing here (the parser checks it).
      skip(4);
      continue;
    }
    const fixed = fixedSizes[type];
    if (fixed !== undefined) {
      skip(fixed);
    } else if (type === 0x02 || type === 0x0d || type === 0x0e) {
      // A string's length counts its closing zero, so it is at least 1.
      skip(span(1, false));
    } else if (type === 0x05) {
      skip(span(0, false) + 1);
    } else if (type === 0x0f) {
      // Code with scope: the total counts its own four bytes, the string and the scope document.
      skip(span(14, true));
    } else if (type === 0x0c) {
      skip(span(1, false) + 12);
    } else if (type === 0x0b) {
      for (let strings = 0; strings < 2; strings++) {
        const stringEnd = bytes.indexOf(0, offset);
        if (stringEnd === -1) throw malformed('unterminated regular expression');
        offset = stringEnd + 1;
      }
    } else {
      throw malformed(`unknown element type 0x${type.toString(16)}`);
    }
  }
}

/** Turns what bson hands back into JSON values: int64 checked, dates as ISO strings, others refused. */
function toJson(value: unknown): unknown {
  switch (typeof value) {
    case 'bigint':
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw mediaErrors.INTEGER_OUT_OF_RANGE();
      }
      return Number(value);
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) value[index] = toJson(value[index]);
        return value;
      }
      if (value instanceof Date) {
        // A UTC datetime is any int64 of milliseconds; beyond ±8.64e15 a Date is invalid and has no ISO form.
        if (Number.isNaN(value.getTime())) throw malformed('a date is out of range');
        return value.toISOString();
      }
      const bsonType = (value as { _bsontype?: unknown })._bsontype;
      if (bsonType === 'Decimal128') return Number(String(value));
      if (bsonType !== undefined) throw malformed(`the BSON type ${String(bsonType)} is not supported`);
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (key === '__proto__') throw malformed('the key __proto__ is not allowed');
        record[key] = toJson(record[key]);
      }
      return record;
    }
    case 'undefined':
      return null;
    default:
      return value;
  }
}

/** Decodes a request body; the body schema says whether the document is an object, an array or a scalar. */
export function decodeBson(
  bytes: Buffer,
  schema: JsonSchema | undefined,
  resolve: SchemaResolver,
  maxDepth: number,
): unknown {
  if (bytes.length === 0) return undefined;
  if (bytes.length < 5 || bytes.readInt32LE(0) !== bytes.length)
    throw malformed('the length prefix is wrong');
  checkBsonDepth(bytes, maxDepth);
  let document: Record<string, unknown>;
  try {
    document = deserialize(bytes, { useBigInt64: true, promoteValues: true, bsonRegExp: true });
  } catch (error) {
    // Whatever the parser throws on these bytes is a fault of the bytes: the body is malformed.
    throw malformed(error instanceof BSONError ? error.message : 'the document is not valid BSON');
  }
  const concrete = deref(schema, resolve);
  const type = concrete === undefined ? undefined : mainType(nonNullBranch(concrete, resolve));
  if (type === 'array') return toJson(Object.values(document));
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return toJson(document.Value);
  }
  return toJson(document);
}
