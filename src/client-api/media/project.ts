import { deref, type JsonSchema, mainType, type SchemaResolver, typeMatches } from './schema.ts';

/**
 * Applies a response schema to the data the way Fastify's JSON serialiser (fast-json-stringify) does:
 * only declared properties (plus additional/pattern ones when the schema allows them), values coerced to
 * the declared scalar type, `toJSON` honoured (dates become ISO strings). The BSON, UBJSON and XML
 * encoders work on this result, so every format carries exactly the fields the JSON answer carries.
 * Like fast-json-stringify, each schema is compiled once into a function (cached per schema object).
 */
export interface ProjectOptions {
  resolve: SchemaResolver;
  /** Turns an integer of a `format: 'int64'` field into the encoder's own int64 value (BSON Long). */
  int64?: (value: number) => unknown;
}

type Plain = Record<string, unknown>;
type Projector = (value: unknown) => unknown;

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

function extraSchema(schema: JsonSchema): JsonSchema | false {
  const additional = schema.additionalProperties;
  if (additional === true) return {};
  if (typeof additional === 'object') return additional;
  const patterns = (schema as { patternProperties?: Record<string, JsonSchema> }).patternProperties;
  if (patterns !== undefined) return Object.values(patterns)[0] ?? {};
  return false;
}

class Compiler {
  private readonly cache = new WeakMap<JsonSchema, Projector>();
  constructor(private readonly options: ProjectOptions) {}

  /** A projector compiled on first use, so recursive schemas compile lazily instead of forever. */
  lazy(schema: JsonSchema | undefined): Projector {
    let compiled: Projector | undefined;
    return (value) => {
      compiled ??= this.get(schema);
      return compiled(value);
    };
  }

  get(schema: JsonSchema | undefined): Projector {
    if (schema === undefined) return plainJson;
    let projector = this.cache.get(schema);
    if (projector === undefined) {
      projector = this.compile(schema);
      this.cache.set(schema, projector);
    }
    return projector;
  }

  private compile(input: JsonSchema): Projector {
    const schema = deref(input, this.options.resolve);
    if (schema === undefined) return plainJson;
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches !== undefined) return this.union(branches);
    switch (mainType(schema)) {
      case 'object':
        return this.object(schema);
      case 'array': {
        const items = this.lazy(Array.isArray(schema.items) ? undefined : schema.items);
        return (raw) => {
          const value = withToJson(raw);
          return Array.isArray(value)
            ? value.map((item) => (item === undefined ? null : items(item)))
            : plainJson(value);
        };
      }
      case 'string':
        return (raw) => (typeof raw === 'string' ? raw : raw === null ? null : String(withToJson(raw)));
      case 'integer':
        return this.integer(schema);
      case 'number':
        return (raw) => (typeof raw === 'number' || raw === null ? raw : Number(withToJson(raw)));
      case 'boolean':
        return (raw) => (typeof raw === 'boolean' || raw === null ? raw : Boolean(raw));
      default:
        return plainJson;
    }
  }

  /** First branch whose type matches the value (what fast-json-stringify picks, near enough). */
  private union(branches: JsonSchema[]): Projector {
    const compiled = branches.map((branch) => ({
      schema: deref(branch, this.options.resolve) ?? {},
      project: this.lazy(branch),
    }));
    return (raw) => {
      const value = withToJson(raw);
      for (const branch of compiled) if (typeMatches(branch.schema, value)) return branch.project(value);
      return plainJson(value);
    };
  }

  private integer(schema: JsonSchema): Projector {
    const int64 = schema.format === 'int64' ? this.options.int64 : undefined;
    return (raw) => {
      if (raw === null) return null;
      const number = typeof raw === 'number' ? raw : Number(withToJson(raw));
      const integer = Number.isFinite(number) ? Math.trunc(number) : number;
      return int64 !== undefined && Number.isSafeInteger(integer) ? int64(integer) : integer;
    };
  }

  private object(schema: JsonSchema): Projector {
    const properties = Object.entries(schema.properties ?? {}).map(
      ([key, property]) => [key, this.lazy(property)] as const,
    );
    const known = new Set(properties.map(([key]) => key));
    const extraSchemaOf = extraSchema(schema);
    const extra = extraSchemaOf === false ? undefined : this.lazy(extraSchemaOf);
    return (raw) => {
      const value = withToJson(raw);
      if (!isPlainObject(value)) return plainJson(value);
      const out: Plain = {};
      for (const [key, project] of properties) {
        const item = value[key];
        if (item !== undefined) out[key] = project(item);
      }
      if (extra !== undefined) {
        for (const key of Object.keys(value)) {
          const item = value[key];
          if (!known.has(key) && item !== undefined && typeof item !== 'function') out[key] = extra(item);
        }
      }
      return out;
    };
  }
}

const compilers = new WeakMap<SchemaResolver, { plain: Compiler; int64: WeakMap<object, Compiler> }>();

function compilerFor(options: ProjectOptions): Compiler {
  let entry = compilers.get(options.resolve);
  if (entry === undefined) {
    entry = { plain: new Compiler({ resolve: options.resolve }), int64: new WeakMap() };
    compilers.set(options.resolve, entry);
  }
  if (options.int64 === undefined) return entry.plain;
  let compiler = entry.int64.get(options.int64);
  if (compiler === undefined) {
    compiler = new Compiler(options);
    entry.int64.set(options.int64, compiler);
  }
  return compiler;
}

export function project(schema: JsonSchema | undefined, value: unknown, options: ProjectOptions): unknown {
  return compilerFor(options).get(schema)(value);
}
