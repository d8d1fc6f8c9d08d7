import fc from 'fast-check';
import type { Codec } from './codecs.ts';

/**
 * The ways an attacker breaks a valid body: a length or count overwritten (negative, zero, huge, off by
 * one, the body's own size), the body cut short, nested past any limit, random or meaningful bytes spliced
 * in, parts deleted or repeated. Each mutation is plain data, so fast-check prints and shrinks it.
 */

/** Largest body the fuzzer builds (the service's default body limit). */
export const MAX_BODY = 64 * 1024;

/** Values written over a length or count; `+1`/`-1` are relative to what was there, `rest` what is left. */
const fieldValues = fc.constantFrom<number | '+1' | '-1' | 'rest' | 'rest+1' | 'size'>(
  -1,
  -2,
  -16,
  0,
  1,
  0x7f,
  0xff,
  0x7fffffff,
  -0x80000000,
  0xffff,
  '+1',
  '-1',
  'rest',
  'rest+1',
  'size',
);

export type Mutation =
  | { kind: 'field'; at: number; width: 1 | 2 | 4; bigEndian: boolean; value: number | string }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'token'; at: number; token: number; times: number }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'repeat'; at: number; length: number; times: number }
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'nest'; levels: number; closed: boolean };

const at = fc.nat();
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('field' as const),
      at,
      width: fc.constantFrom(1 as const, 2 as const, 4 as const),
      bigEndian: fc.boolean(),
      value: fieldValues,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      at,
      bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('token' as const),
      at,
      token: fc.nat(),
      times: fc.integer({ min: 1, max: 40 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      at,
      length: fc.integer({ min: 1, max: 32 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('repeat' as const),
      at,
      length: fc.integer({ min: 1, max: 64 }),
      times: fc.integer({ min: 2, max: 400 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('flip' as const), at, bit: fc.integer({ min: 0, max: 7 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('nest' as const),
      levels: fc.integer({ min: 1, max: 300 }),
      closed: fc.boolean(),
    }),
  },
);

function fieldValue(spec: number | string, old: number, rest: number, size: number): number {
  switch (spec) {
    case '+1':
      return old + 1;
    case '-1':
      return old - 1;
    case 'rest':
      return rest;
    case 'rest+1':
      return rest + 1;
    case 'size':
      return size;
    default:
      return Number(spec);
  }
}

/** Writes `value` into `width` bytes, wrapped to fit (so -1 is all ones, 0x7fffffff in one byte 0xff). */
function writeField(body: Buffer, offset: number, width: 1 | 2 | 4, bigEndian: boolean, value: number): void {
  const bits = width * 8;
  const wrapped = Number(BigInt.asUintN(bits, BigInt(Math.trunc(value))));
  body.writeUIntBE(wrapped, offset, width);
  if (!bigEndian) body.subarray(offset, offset + width).reverse();
}

function readField(body: Buffer, offset: number, width: 1 | 2 | 4, bigEndian: boolean): number {
  return bigEndian ? body.readIntBE(offset, width) : body.readIntLE(offset, width);
}

export function applyMutation(codec: Codec, input: Buffer, change: Mutation): Buffer {
  const body = Buffer.from(input);
  const position = body.length === 0 ? 0 : change.kind === 'nest' ? 0 : change.at % (body.length + 1);
  switch (change.kind) {
    case 'field': {
      if (body.length < change.width) return body;
      const offset = Math.min(position, body.length - change.width);
      const old = readField(body, offset, change.width, change.bigEndian);
      const rest = body.length - offset - change.width;
      writeField(
        body,
        offset,
        change.width,
        change.bigEndian,
        fieldValue(change.value, old, rest, body.length),
      );
      return body;
    }
    case 'truncate':
      return body.subarray(0, position);
    case 'insert':
      return Buffer.concat([body.subarray(0, position), change.bytes, body.subarray(position)]);
    case 'token': {
      const token = Buffer.from(codec.tokens[change.token % codec.tokens.length] ?? '', 'latin1');
      const run = Buffer.concat(Array.from({ length: change.times }, () => token));
      return Buffer.concat([body.subarray(0, position), run, body.subarray(position)]);
    }
    case 'delete':
      return Buffer.concat([body.subarray(0, position), body.subarray(position + change.length)]);
    case 'repeat': {
      const slice = body.subarray(position, position + change.length);
      const run = Buffer.concat(Array.from({ length: change.times }, () => slice));
      return Buffer.concat([body.subarray(0, position), run, body.subarray(position)]);
    }
    case 'flip':
      if (position < body.length) body[position] = (body[position] as number) ^ (1 << change.bit);
      return body;
    case 'nest':
      return codec.wrap(body, change.levels, change.closed);
  }
}

/** A case: a valid body, what breaks it, whether the codec's own framing is mended, and the schema. */
export function caseOf(codec: Codec, schemaCount: number) {
  return fc.record({
    valid: codec.valid,
    mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }),
    mend: fc.boolean(),
    schema: fc.nat({ max: schemaCount - 1 }),
  });
}

export type FuzzCase = { valid: Uint8Array; mutations: Mutation[]; mend: boolean; schema: number };

/** The broken body of a case, cut to the largest body the service would read. */
export function bodyOf(codec: Codec, fuzzCase: FuzzCase): Buffer {
  let body: Buffer = Buffer.from(fuzzCase.valid);
  for (const change of fuzzCase.mutations) {
    body = applyMutation(codec, body, change);
    if (body.length > MAX_BODY) body = body.subarray(0, MAX_BODY);
  }
  return fuzzCase.mend && codec.fixup ? codec.fixup(body) : body;
}
