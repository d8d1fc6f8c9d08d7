import { deref, itemsSchema, type JsonSchema, mainType, pickBranch, type SchemaResolver } from './schema.ts';
import { encodeName, escapeText } from './xml-names.ts';

/**
 * Writes projected response data as XML, reading names from the schema's `xml` hints: the root element
 * is `xml.name` of the response schema and list items are named by `items.xml.name`; a property's
 * element is always its key (a type's name never renames a property). An array property is wrapped in
 * one element named by the key only when `xml.wrapped` is true (Swagger's default is unwrapped), its
 * items named by `items.xml.name`, else by the key.
 *
 * Fallbacks, where the schema names nothing (the DataContract names of .NET): `string`, `boolean`,
 * `int` / `long` (`format: 'int64'`) / `double`, `Object` for an unnamed object, `ArrayOf<item name>`
 * for an unnamed list (so a list of unnamed objects is `<ArrayOfObject><Object>…`), `anyType` for a
 * value with no schema at all. Schema-less (generic) objects write one element per key (names escaped
 * like XmlConvert.EncodeName) and their arrays wrapped. `null` is `<name xsi:nil="true"/>`.
 */

const NIL = ' xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

function valueFallbackName(value: unknown): string {
  if (value === null || value === undefined) return 'anyType';
  if (Array.isArray(value)) return `ArrayOf${value.length > 0 ? valueFallbackName(value[0]) : 'anyType'}`;
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      if (!Number.isInteger(value)) return 'double';
      return value >= -2147483648 && value <= 2147483647 ? 'int' : 'long';
    case 'object':
      return 'Object';
    default:
      return 'anyType';
  }
}

/** The element name of a value of this schema when nothing else names it. */
export function typeName(schema: JsonSchema | undefined, value: unknown, resolve: SchemaResolver): string {
  const concrete = deref(schema, resolve);
  if (concrete === undefined) return 'anyType';
  const chosen = pickBranch(concrete, value, resolve);
  if (chosen.xml?.name !== undefined) return chosen.xml.name;
  switch (mainType(chosen)) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'integer':
      return chosen.format === 'int64' ? 'long' : 'int';
    case 'number':
      return 'double';
    case 'object':
      return 'Object';
    case 'array': {
      const items = itemsSchema(chosen);
      const first = Array.isArray(value) ? value[0] : undefined;
      return `ArrayOf${items === undefined ? valueFallbackName(first) : typeName(items, first, resolve)}`;
    }
    default:
      return valueFallbackName(value);
  }
}

function scalarText(value: unknown): string {
  return typeof value === 'string' ? escapeText(value) : String(value);
}

class XmlWriter {
  out = '';
  constructor(private readonly resolve: SchemaResolver) {}

  element(name: string, input: JsonSchema | undefined, value: unknown, itemName?: string): void {
    if (value === null || value === undefined) {
      this.out += `<${name}${NIL}/>`;
      return;
    }
    if (typeof value !== 'object') {
      // A scalar's text does not depend on its schema: no lookups on the hot path.
      this.out += `<${name}>${scalarText(value)}</${name}>`;
      return;
    }
    const concrete = deref(input, this.resolve);
    const schema = concrete === undefined ? undefined : pickBranch(concrete, value, this.resolve);
    if (Array.isArray(value)) {
      this.out += `<${name}>`;
      this.items(schema, value, itemName);
      this.out += `</${name}>`;
    } else if (typeof value === 'object') {
      this.out += `<${name}>`;
      this.members(schema, value as Record<string, unknown>);
      this.out += `</${name}>`;
    } else {
      this.out += `<${name}>${scalarText(value)}</${name}>`;
    }
  }

  /** The items of a list, all under one name so their order survives any reader. */
  private items(schema: JsonSchema | undefined, list: unknown[], itemName: string | undefined): void {
    const items = itemsSchema(schema);
    const name =
      deref(items, this.resolve)?.xml?.name ??
      itemName ??
      (items === undefined
        ? valueFallbackName(list.find((item) => item !== null))
        : typeName(items, list[0], this.resolve));
    for (const item of list) this.element(name, items, item);
  }

  private members(schema: JsonSchema | undefined, record: Record<string, unknown>): void {
    const properties = schema?.properties;
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (value === undefined) continue;
      const property = properties?.[key] ?? extraSchema(schema);
      // A property's element is its key: `xml.name` names types (roots and list items), as in DataContract.
      const name = encodeName(key);
      if (!Array.isArray(value)) {
        this.element(name, property, value);
        continue;
      }
      const concrete = deref(property, this.resolve);
      const declaredArray =
        concrete !== undefined && mainType(pickBranch(concrete, value, this.resolve)) === 'array';
      if (declaredArray && concrete?.xml?.wrapped !== true) {
        // Swagger's default for an array property: one element per item, no wrapper.
        const items = itemsSchema(concrete);
        const itemName = deref(items, this.resolve)?.xml?.name ?? name;
        for (const item of value) this.element(itemName, items, item);
      } else {
        this.element(name, property, value, concrete === undefined ? undefined : name);
      }
    }
  }
}

function extraSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  const additional = schema?.additionalProperties;
  return typeof additional === 'object' ? additional : undefined;
}

/** Encodes projected data under the response schema; `undefined` (nothing) is an empty body. */
export function encodeXml(schema: JsonSchema | undefined, value: unknown, resolve: SchemaResolver): string {
  if (value === undefined) return '';
  const writer = new XmlWriter(resolve);
  writer.element(rootName(schema, value, resolve), schema, value);
  return DECLARATION + writer.out;
}

export function rootName(schema: JsonSchema | undefined, value: unknown, resolve: SchemaResolver): string {
  return typeName(schema, value, resolve);
}
