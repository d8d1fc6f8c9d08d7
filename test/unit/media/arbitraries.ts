import fc from 'fast-check';
import type { JsonSchema } from '../../../src/client-api/media/schema.ts';

/** Keys the decoders refuse on purpose (prototype pollution), so generated values never use them. */
function safeKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(safeKeys);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, item]) => key !== '__proto__' && safeKeys(item));
  }
  return true;
}

/** Any JSON value with full Unicode strings (whole graphemes: UTF-8 cannot carry lone surrogates). */
export const jsonValue = fc.jsonValue({ maxDepth: 6, stringUnit: 'grapheme' }).filter(safeKeys);

/** What JSON itself would give back (so -0 is 0): the yardstick of a round trip. */
export function viaJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

const XML_CHARS = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const xmlString = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((text) => XML_CHARS.test(text));
const xmlKey = fc
  .string({ unit: 'grapheme', maxLength: 6 })
  .filter((text) => XML_CHARS.test(text) && text !== '__proto__');

const scalarSchema: fc.Arbitrary<JsonSchema> = fc.constantFrom<JsonSchema>(
  { type: 'string' },
  { type: 'integer' },
  { type: 'integer', format: 'int64' },
  { type: 'number' },
  { type: 'boolean' },
);

/** Schemas with the shapes the routes use: named or unnamed objects, wrapped and unwrapped lists, nullables. */
const schemas = fc.letrec<{
  node: JsonSchema;
  object: JsonSchema;
  array: JsonSchema;
  nullable: JsonSchema;
}>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: 'small' },
    scalarSchema,
    tie('object'),
    tie('array'),
    tie('nullable'),
  ),
  nullable: fc.oneof(scalarSchema, tie('object')).map((inner) => ({ anyOf: [inner, { type: 'null' }] })),
  object: fc
    .tuple(
      fc.uniqueArray(fc.tuple(xmlKey, tie('node')), { selector: ([key]) => key, maxLength: 5 }),
      fc.option(fc.constantFrom('Thing', 'DeviceBase', 'User'), { nil: undefined }),
    )
    .map(([entries, name]) => ({
      type: 'object',
      properties: Object.fromEntries(entries),
      required: entries.map(([key]) => key),
      ...(name === undefined ? {} : { xml: { name } }),
    })),
  array: fc
    .tuple(tie('node'), fc.boolean(), fc.option(fc.constantFrom('Item', 'Entry'), { nil: undefined }))
    // Named items only in wrapped lists: two unwrapped lists of the same item name (or of objects of
    // the same type name) would interleave, so unwrapped items are named after their property.
    .map(([items, wrapped, itemName]) => ({
      type: 'array',
      items: !wrapped
        ? unnamed(items)
        : itemName === undefined
          ? items
          : { ...items, xml: { name: itemName } },
      xml: { wrapped },
    })),
}));

export const schema: fc.Arbitrary<JsonSchema> = schemas.node;

/** The schema without a type name of its own (for itself, or the object inside a nullable). */
function unnamed(shape: JsonSchema): JsonSchema {
  if (shape.anyOf) return { ...shape, anyOf: shape.anyOf.map(unnamed) };
  if (shape.xml?.name === undefined) return shape;
  const { xml: _xml, ...rest } = shape;
  return rest;
}

/** A value that conforms to the schema. */
export function valueFor(shape: JsonSchema): fc.Arbitrary<unknown> {
  if (shape.anyOf) {
    const [inner = {}] = shape.anyOf;
    return fc.option(valueFor(inner), { nil: null });
  }
  switch (shape.type) {
    case 'string':
      return xmlString;
    case 'integer':
      return shape.format === 'int64' ? fc.maxSafeInteger() : fc.integer();
    case 'number':
      return fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .map((number) => (Object.is(number, -0) ? 0 : number));
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = Array.isArray(shape.items) ? {} : (shape.items ?? {});
      return fc.array(valueFor(items), { maxLength: 4 });
    }
    default: {
      const properties = shape.properties ?? {};
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([key, item]) => [key, valueFor(item)])),
        {
          noNullPrototype: true,
        },
      );
    }
  }
}

export const typedValue = schema.chain((shape) => valueFor(shape).map((value) => ({ schema: shape, value })));
