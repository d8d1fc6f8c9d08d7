import { encode as ubjsonEncode } from '@shelacek/ubjson';
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  serialize,
  Timestamp,
} from 'bson';
import fc from 'fast-check';
import { Builder } from 'xml2js';
import { readForm } from '../../../src/client-api/device-grant/form-body.ts';
import { decodeBson } from '../../../src/client-api/media/bson-codec.ts';
import { decodeJson } from '../../../src/client-api/media/json-codec.ts';
import type { JsonSchema } from '../../../src/client-api/media/schema.ts';
import { decodeUbjson } from '../../../src/client-api/media/ubjson-codec.ts';
import { decodeXml } from '../../../src/client-api/media/xml-decode.ts';

/**
 * The body codecs the fuzzer breaks: valid bodies written by independent encoders (never our own), the
 * decoder the service runs on them, and each codec's own ways of nesting and its structural tokens.
 */

export const codecNames = ['json', 'bson', 'ubjson', 'xml', 'form'] as const;
export type CodecName = (typeof codecNames)[number];

export interface Codec {
  contentType: string;
  /** Valid bodies of this codec. */
  valid: fc.Arbitrary<Uint8Array>;
  /** The service's decoder, under one of the schemas a route may have. */
  decode(body: Buffer, schema: JsonSchema): unknown;
  /** The body nested `levels` times (`open` alone when `closed` is false: the closers never come). */
  wrap(body: Buffer, levels: number, closed: boolean): Buffer;
  /** Bytes that mean something to this codec's parser, spliced in by the mutator. */
  tokens: readonly string[];
  /** Puts back what a careful attacker keeps right (BSON's total length), so mutations reach the walk. */
  fixup?(body: Buffer): Buffer;
}

export const MAX_DEPTH = 32;
/** No schema references to resolve. */
export const noRefs = () => undefined;

/** A device body's fields: every scalar type (a 64-bit integer among them) and a wrapped list. */
export const DEVICE_FIELDS: Record<string, JsonSchema> = {
  name: { type: 'string' },
  enabled: { type: 'boolean' },
  serial: { type: 'integer', format: 'int64' },
  weight: { type: 'number' },
  tags: { type: 'array', items: { type: 'string' }, xml: { wrapped: true } },
};

/** Bodies under every shape of body schema the routes declare. */
export const schemas: readonly JsonSchema[] = [
  {},
  { type: 'object', xml: { name: 'DeviceInput' }, properties: DEVICE_FIELDS, required: ['name', 'tags'] },
  { type: 'array', items: { type: 'object', additionalProperties: { type: 'integer' } } },
  { type: 'string' },
  { type: 'integer' },
  { type: 'boolean' },
  { anyOf: [{ type: 'number' }, { type: 'null' }] },
];

const jsonValue = fc.jsonValue({ maxDepth: 5 });
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const repeat = (text: string, times: number) => text.repeat(Math.max(0, times));

/** A valid body of every BSON element type, nested documents and arrays included. */
const everyBsonType = serialize({
  double: new Double(1.5),
  string: 'text',
  object: { inner: [1, 'two', { three: null }] },
  binary: new Binary(Buffer.from([1, 2, 3]), 4),
  objectId: new ObjectId('0123456789abcdef01234567'),
  boolean: true,
  date: new Date(0),
  regex: new BSONRegExp('a+', 'i'),
  dbRef: new DBRef('collection', new ObjectId('0123456789abcdef01234567')),
  code: new Code('x()'),
  symbol: new BSONSymbol('s'),
  scoped: new Code('y()', { scope: { deep: 1 } }),
  int32: new Int32(7),
  timestamp: new Timestamp({ t: 1, i: 2 }),
  long: Long.fromNumber(2 ** 40),
  decimal: Decimal128.fromString('1.25'),
  min: new MinKey(),
  max: new MaxKey(),
});

function bsonDocument(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return Object.fromEntries(value.map((item, index) => [String(index), item]));
  if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  return { Value: value };
}

/** Wraps a BSON document as the only field of another, `levels` times, lengths kept right when closed. */
function wrapBson(body: Buffer, levels: number, closed: boolean): Buffer {
  let out = body;
  for (let level = 0; level < levels; level++) {
    const inner = Buffer.concat([
      Buffer.from([0x03, 0x61, 0]),
      out,
      closed ? Buffer.from([0]) : Buffer.alloc(0),
    ]);
    const head = Buffer.alloc(4);
    head.writeInt32LE(inner.length + 4);
    out = Buffer.concat([head, inner]);
  }
  return out;
}

/** UBJSON bodies beyond what the encoder writes: typed and counted containers, no-ops, chars, H numbers. */
const ubjsonExtras = [
  '[$Z#i\u0005',
  '[$[#i\u0002$Z#i\u0003$T#i\u0001',
  // Typed containers of typed containers: each inner count alone fits the body, together they did not.
  `[$[#i\u0004${'$Z#i\u0040'.repeat(4)}`,
  '{#i\u0001i\u0001a[$i#i\u0002\u0001\u0002',
  '[NNCaHi\u001412345678901234567890Si\u0001x]',
  '{i\u0001aL\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0001}',
].map((text) => Buffer.from(text, 'latin1'));

const xmlName = fc.constantFrom('name', 'enabled', 'serial', 'weight', 'tags', 'a', 'b', '_x0041_', 'Item');
const xmlText = fc.constantFrom(
  '',
  'x',
  '12',
  'true',
  '2.5',
  '&amp;',
  'a &lt; b',
  '&#x41;',
  '9007199254740993',
);
const xmlTree = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    xmlText,
    tie('object'),
    fc.array(fc.oneof(xmlText, tie('object')), { maxLength: 3 }),
  ),
  object: fc.dictionary(xmlName, tie('value'), { maxKeys: 4 }),
})).object;

/** XML the builder does not write: comments, CDATA, instructions, attributes, nil, entities, BOM. */
const xmlExtras = [
  '<?xml version="1.0"?><DeviceInput><!-- c --><name><![CDATA[<x>]]></name><tags/></DeviceInput>',
  '\ufeff<a xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><b i:nil="true"/><c d="&quot;">&#65;</c></a>',
  '<ArrayOfDeviceInput><DeviceInput><name>n</name></DeviceInput><?pi x?></ArrayOfDeviceInput>',
].map(utf8);

const formField = fc.constantFrom('grant_type', 'client_id', 'device_code', 'device_id', 'scope', 'a');

export const codecs: Record<CodecName, Codec> = {
  json: {
    contentType: 'application/json',
    valid: jsonValue.map((value) => utf8(JSON.stringify(value) ?? 'null')),
    decode: (body) => decodeJson(body.toString('utf8'), MAX_DEPTH),
    wrap: (body, levels, closed) =>
      Buffer.concat([utf8(repeat('[{"a":', levels)), body, utf8(closed ? repeat('}]', levels) : '')]),
    tokens: ['{', '}', '[', ']', '"', ':', ',', '\\u', '\\', '1e999', '-0', '__proto__', '\u0000'],
  },
  bson: {
    contentType: 'application/bson',
    valid: fc.oneof(
      jsonValue.map((value) => Buffer.from(serialize(bsonDocument(value)))),
      fc.constant(Buffer.from(everyBsonType)),
    ),
    decode: (body, schema) => decodeBson(body, schema, noRefs, MAX_DEPTH),
    wrap: wrapBson,
    tokens: ['\u0000', '\u0003a\u0000', '\u0004a\u0000', '\u0002a\u0000', '\u000fa\u0000', '\u0012a\u0000'],
    fixup: (body) => {
      if (body.length < 4) return body;
      const fixed = Buffer.from(body);
      fixed.writeInt32LE(fixed.length, 0);
      return fixed;
    },
  },
  ubjson: {
    contentType: 'application/ubjson',
    valid: fc.oneof(
      jsonValue.map((value) =>
        Buffer.from(ubjsonEncode(value, { optimizeArrays: true, optimizeObjects: true })),
      ),
      fc.constantFrom(...ubjsonExtras),
    ),
    decode: (body) => decodeUbjson(body, MAX_DEPTH),
    wrap: (body, levels, closed) =>
      Buffer.concat([utf8(repeat('[', levels)), body, utf8(closed ? repeat(']', levels) : '')]),
    tokens: ['[', ']', '{', '}', '$', '#', 'N', 'Z', '$Z#', '#l', 'H', 'S', 'L', 'i', 'U', 'I', 'C'],
  },
  xml: {
    contentType: 'application/xml',
    valid: fc.oneof(
      {
        weight: 4,
        arbitrary: xmlTree.map((tree) => utf8(new Builder({ rootName: 'Body' }).buildObject(tree))),
      },
      { weight: 1, arbitrary: fc.constantFrom(...xmlExtras) },
    ),
    decode: (body, schema) => decodeXml(body.toString('utf8'), schema, noRefs, MAX_DEPTH),
    wrap: (body, levels, closed) =>
      Buffer.concat([utf8(repeat('<a>', levels)), body, utf8(closed ? repeat('</a>', levels) : '')]),
    tokens: [
      '<',
      '>',
      '</',
      '/>',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '<?',
      '?>',
      '"',
      "'",
      '&',
      '&#x110000;',
      '_x110000_',
      '&#0;',
      '<!DOCTYPE',
    ],
  },
  form: {
    contentType: 'application/x-www-form-urlencoded',
    valid: fc
      .array(fc.tuple(formField, fc.string({ maxLength: 12 })), { maxLength: 6 })
      .map((pairs) => utf8(new URLSearchParams(pairs).toString())),
    decode: (body) => readForm(body.toString('utf8')),
    wrap: (body, levels) => Buffer.concat([utf8(repeat('a%5B', levels)), body]),
    tokens: ['&', '=', '%', '%zz', '%ff', '%C0%80', '+', '&&', '=='],
  },
};

export const isCodecName = (name: string): name is CodecName =>
  (codecNames as readonly string[]).includes(name);
