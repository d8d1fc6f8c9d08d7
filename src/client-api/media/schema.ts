/**
 * The small part of JSON Schema the codecs read: enough to pick fields, types and XML names from the
 * routes' TypeBox schemas (which are plain JSON Schema objects at run time).
 */
export interface XmlHint {
  name?: string;
  wrapped?: boolean;
}

export interface JsonSchema {
  $id?: string;
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  xml?: XmlHint;
}

export type SchemaResolver = (ref: string) => JsonSchema | undefined;

/** Follows `$ref`s (by `$id`, as Fastify's shared schemas are named) until a concrete schema. */
export function deref(schema: JsonSchema | undefined, resolve: SchemaResolver): JsonSchema | undefined {
  let current = schema;
  for (let hops = 0; current?.$ref !== undefined && hops < 16; hops++) {
    const ref = current.$ref;
    current = resolve(ref.startsWith('#') ? ref.slice(1) : ref.replace(/#$/, ''));
  }
  return current;
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether a value is of a type (or const/enum member) the schema allows; integers are numbers too. */
export function typeMatches(schema: JsonSchema, value: unknown): boolean {
  if (schema.const !== undefined) return schema.const === value;
  if (schema.enum !== undefined) return schema.enum.includes(value);
  const declared = schema.type;
  if (declared === undefined) return true;
  const actual = typeOfValue(value);
  const types = Array.isArray(declared) ? declared : [declared];
  return types.some((type) => type === actual || (type === 'number' && actual === 'integer'));
}

/** For unions: the first branch whose type matches the value (what fast-json-stringify picks, near enough). */
export function pickBranch(schema: JsonSchema, value: unknown, resolve: SchemaResolver): JsonSchema {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches === undefined) return schema;
  for (const branch of branches) {
    const concrete = deref(branch, resolve);
    if (concrete !== undefined && typeMatches(concrete, value)) return pickBranch(concrete, value, resolve);
  }
  return {};
}

/** The first non-null type a schema declares (`['string', 'null']` is a string). */
export function mainType(schema: JsonSchema): string | undefined {
  const declared = schema.type;
  if (Array.isArray(declared)) return declared.find((type) => type !== 'null') ?? declared[0];
  if (declared !== undefined) return declared;
  if (schema.properties !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

/** The non-null branch of `anyOf: [X, null]` (TypeBox's nullable), for reading input. */
export function nonNullBranch(schema: JsonSchema, resolve: SchemaResolver): JsonSchema {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches === undefined) return schema;
  for (const branch of branches) {
    const concrete = deref(branch, resolve);
    if (concrete !== undefined && concrete.type !== 'null') return nonNullBranch(concrete, resolve);
  }
  return {};
}

export function itemsSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  const items = schema?.items;
  return Array.isArray(items) ? items[0] : items;
}
