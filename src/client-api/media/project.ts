import { deref, type JsonSchema, mainType, pickBranch, type SchemaResolver } from './schema.ts';

/**
 * Applies a response schema to the data the way Fastify's JSON serialiser (fast-json-stringify) does:
 * only declared properties (plus additional/pattern ones when the schema allows them), values coerced to
 * the declared scalar type, `toJSON` honoured (dates become ISO strings). The BSON, UBJSON and XML
 * encoders work on this result, so every format carries exactly the fields the JSON answer carries.
 */
export interface ProjectOptions {
  resolve: SchemaResolver;
  /** Turns an integer of a `format: 'int64'` field into the encoder's own int64 value (BSON Long). */
  int64?: (value: number) => unknown;
}

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withToJson(value: unknown): unknown {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    return (value as { toJSON(): unknown }).toJSON();
  }
  return value;
}

/** JSON.stringify's view of an unschematised value: toJSON applied, undefined and functions dropped. */
export function plainJson(input: unknown): unknown {
  const value = withToJson(input);
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : plainJson(item)));
  if (isPlainObject(value)) {
    const out: Plain = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item !== undefined && typeof item !== 'function') out[key] = plainJson(item);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return value;
}

function projectScalar(type: string, schema: JsonSchema, value: unknown, options: ProjectOptions): unknown {
  if (value === null) return null;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : String(value);
    case 'integer': {
      const number = typeof value === 'number' ? value : Number(value);
      const integer = Number.isFinite(number) ? Math.trunc(number) : number;
      return schema.format === 'int64' && options.int64 !== undefined && Number.isSafeInteger(integer)
        ? options.int64(integer)
        : integer;
    }
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : Boolean(value);
    default:
      return plainJson(value);
  }
}

function extraSchema(schema: JsonSchema): JsonSchema | false {
  const additional = schema.additionalProperties;
  if (additional === true) return {};
  if (typeof additional === 'object') return additional;
  const patterns = (schema as { patternProperties?: Record<string, JsonSchema> }).patternProperties;
  if (patterns !== undefined) return Object.values(patterns)[0] ?? {};
  return false;
}

function projectObject(schema: JsonSchema, value: Plain, options: ProjectOptions): Plain {
  const out: Plain = {};
  const properties = schema.properties ?? {};
  for (const key of Object.keys(properties)) {
    const item = value[key];
    if (item !== undefined) out[key] = project(properties[key], item, options);
  }
  const extra = extraSchema(schema);
  if (extra !== false) {
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (!(key in properties) && item !== undefined && typeof item !== 'function') {
        out[key] = project(extra, item, options);
      }
    }
  }
  return out;
}

export function project(input: JsonSchema | undefined, raw: unknown, options: ProjectOptions): unknown {
  const value = withToJson(raw);
  const concrete = deref(input, options.resolve);
  if (concrete === undefined) return plainJson(value);
  const schema = pickBranch(concrete, value, options.resolve);
  const type = mainType(schema);
  if (type === 'object') {
    return isPlainObject(value) ? projectObject(schema, value, options) : plainJson(value);
  }
  if (type === 'array') {
    if (!Array.isArray(value)) return plainJson(value);
    const items = Array.isArray(schema.items) ? undefined : schema.items;
    return value.map((item) => (item === undefined ? null : project(items, item, options)));
  }
  if (type === undefined) return plainJson(value);
  return projectScalar(type, schema, value, options);
}
