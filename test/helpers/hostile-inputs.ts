/**
 * Hostile values and the cases they make of a served API document (Swagger 2 or OpenAPI 3): every path,
 * query and form parameter, every top-level body field and the body itself, one value at a time, the
 * rest valid. The tests that walk the three services (test/core/hostile-*.test.ts) send them.
 */

/** A number a JS number cannot carry exactly: written as `raw` in the formats that can. */
export interface RawNumber {
  raw: string;
  approx: number;
}

export interface HostileValue {
  label: string;
  /** In a body: a JS value, or a RawNumber. */
  body: unknown;
  /** In a URL (path, query) or a form, percent-encoded. */
  url: string;
}

const rawNumber = (raw: string): RawNumber => ({ raw, approx: Number(raw) });
export const isRawNumber = (value: unknown): value is RawNumber =>
  typeof value === 'object' && value !== null && 'raw' in value && 'approx' in value;

const TEN_KB = 'x'.repeat(10 * 1024);

export const hostileValues: readonly HostileValue[] = [
  { label: 'NUL', body: 'a\u0000b', url: 'a%00b' },
  // A lone surrogate: JSON's escape; in a URL its WTF-8 bytes, which are not UTF-8.
  { label: 'lone surrogate', body: '\ud800', url: '%ED%A0%80' },
  { label: '10 KB string', body: TEN_KB, url: TEN_KB },
  { label: 'leap second', body: '2026-12-31T23:59:60Z', url: '2026-12-31T23%3A59%3A60Z' },
  { label: '-1', body: -1, url: '-1' },
  { label: '-2^63', body: rawNumber('-9223372036854775808'), url: '-9223372036854775808' },
  { label: '1e308', body: 1e308, url: '1e308' },
  { label: '2^53+1', body: rawNumber('9007199254740993'), url: '9007199254740993' },
  { label: 'object for string', body: { a: 'b' }, url: '%7B%22a%22%3A%22b%22%7D' },
  { label: 'string for number', body: 'abc', url: 'abc' },
  { label: 'array', body: ['a', 1], url: '' },
  { label: 'null', body: null, url: 'null' },
];

export type JsonSchema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  security: string[];
  parameters: Parameter[];
  /** The JSON body's schema, resolved. */
  body?: JsonSchema;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];

interface Document {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}

/** A `$ref` of the document followed (once per level), for parameters and bodies. */
export function resolve(document: unknown, schema: unknown): JsonSchema {
  let current = (schema ?? {}) as JsonSchema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops += 1) {
    const steps = current.$ref.replace(/^#\//, '').split('/');
    current = steps.reduce<JsonSchema>(
      (node, step) => (node[step] ?? {}) as JsonSchema,
      document as JsonSchema,
    );
  }
  return current;
}

/**
 * Every operation of a served document, with its parameters' schemas and its JSON body's; the deletions
 * last, so the valid values the others use still name something.
 */
export function operationsOf(document: unknown): Operation[] {
  const { paths } = document as Document;
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, raw]) => {
        const declared = (raw.parameters ?? []) as JsonSchema[];
        const parameters = declared
          .map((parameter) => resolve(document, parameter))
          .filter((parameter) => parameter.in !== 'body')
          .map((parameter) => ({
            name: String(parameter.name),
            in: String(parameter.in),
            required: parameter.required === true,
            schema: resolve(document, parameter.schema ?? parameter),
          }));
        const swaggerBody = declared.map((p) => resolve(document, p)).find((p) => p.in === 'body');
        const content = (raw.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)
          ?.content;
        const bodySchema = swaggerBody?.schema ?? content?.['application/json']?.schema;
        const security = ((raw.security ?? []) as Array<Record<string, unknown>>).flatMap(Object.keys);
        return {
          id: String(raw.operationId ?? `${method} ${path}`),
          method: method.toUpperCase(),
          path,
          security,
          parameters,
          ...(bodySchema === undefined ? {} : { body: resolve(document, bodySchema) }),
        };
      }),
  );
  return operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

/** A valid value for a schema (or the caller's own, by name), for everything a case does not attack. */
export function sample(
  document: unknown,
  schema: JsonSchema,
  known: Record<string, unknown>,
  name = '',
  depth = 0,
): unknown {
  if (name in known) return known[name];
  const resolved = resolve(document, schema);
  if (Array.isArray(resolved.enum)) return resolved.enum[0];
  if (resolved.default !== undefined) return resolved.default;
  const branch = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  if (branch?.[0]) return sample(document, branch[0], known, name, depth);
  const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
  if (type === 'integer' || type === 'number') return Number(resolved.minimum ?? 1);
  if (type === 'boolean') return true;
  if (type === 'array') {
    const items = resolve(document, resolved.items);
    return Number(resolved.minItems ?? 0) > 0 ? [sample(document, items, known, '', depth + 1)] : [];
  }
  if (type === 'object' || resolved.properties) {
    // The required fields and the ones the caller knows: an optional one guessed could be refused.
    const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((resolved.required ?? []) as string[]);
    if (depth > 3) return {};
    return Object.fromEntries(
      Object.entries(properties)
        .filter(([key]) => required.has(key) || key in known)
        .map(([key, property]) => [key, sample(document, property, known, key, depth + 1)]),
    );
  }
  if (resolved.format === 'date-time') return new Date().toISOString();
  return 'x'.repeat(Math.max(1, Number(resolved.minLength ?? 1)));
}

export interface HostileCase {
  operation: Operation;
  /** What is attacked: `path accountNumber`, `query at`, `body username`, `body`. */
  where: string;
  value: HostileValue;
  /** Path and query, encoded. */
  url: string;
  /** A form body (urlencoded text) or a body value (with RawNumbers), when the operation has one. */
  form?: string;
  body?: unknown;
}

const urlText = (value: unknown) => encodeURIComponent(String(value));

/** Every case of one operation: each parameter and each body field in turn takes each hostile value. */
export function casesOf(
  document: unknown,
  operation: Operation,
  known: Record<string, unknown>,
  base = '',
): HostileCase[] {
  const valid = new Map(
    operation.parameters.map((p) => [
      `${p.in} ${p.name}`,
      urlText(sample(document, p.schema, known, p.name)),
    ]),
  );
  const build = (attacked: string | undefined, value: HostileValue) => {
    const text = (p: Parameter) =>
      `${p.in} ${p.name}` === attacked ? value.url : (valid.get(`${p.in} ${p.name}`) ?? '');
    const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
      const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
      return parameter ? text(parameter) : 'x';
    });
    const pairs = (where: string) =>
      operation.parameters
        .filter((p) => p.in === where && (p.required || `${p.in} ${p.name}` === attacked))
        .flatMap((p) =>
          `${p.in} ${p.name}` === attacked && value.label === 'array'
            ? [`${p.name}=a`, `${p.name}=1`]
            : [`${p.name}=${text(p)}`],
        )
        .join('&');
    const query = pairs('query');
    const form = operation.parameters.some((p) => p.in === 'formData') ? pairs('formData') : undefined;
    return { url: `${base}${path}${query ? `?${query}` : ''}`, ...(form === undefined ? {} : { form }) };
  };
  const validBody = operation.body ? sample(document, operation.body, known) : undefined;
  const cases: HostileCase[] = [];
  for (const value of hostileValues) {
    for (const parameter of operation.parameters.filter((p) => p.in !== 'header')) {
      const where = `${parameter.in} ${parameter.name}`;
      cases.push({ operation, where, value, ...build(where, value), body: validBody });
    }
    if (operation.body === undefined) continue;
    cases.push({ operation, where: 'body', value, ...build(undefined, value), body: value.body });
    if (typeof validBody !== 'object' || validBody === null || Array.isArray(validBody)) continue;
    for (const field of Object.keys(resolve(document, operation.body).properties ?? {})) {
      const body = { ...validBody, [field]: value.body };
      cases.push({ operation, where: `body ${field}`, value, ...build(undefined, value), body });
    }
  }
  return cases;
}

/** A body as JSON text, RawNumbers written exactly. */
export function jsonText(body: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (!isRawNumber(value)) return value;
    raws.push(value.raw);
    return `@@raw${raws.length - 1}@@`;
  });
  return raws.reduce((written, raw, index) => written.replace(`"@@raw${index}@@"`, raw), text ?? 'null');
}

export interface Answer {
  statusCode: number;
  body: string;
}

/** One line per 5xx: the operation, what was attacked with what, and the answer. */
export function serverFaults(sent: Array<{ hostile: HostileCase; answer: Answer; via?: string }>): string[] {
  return sent
    .filter(({ answer }) => answer.statusCode >= 500)
    .map(
      ({ hostile, answer, via }) =>
        `${hostile.operation.id} (${hostile.operation.method} ${hostile.url.slice(0, 120)})${via ? ` ${via}` : ''}: ${hostile.where} = ${hostile.value.label} → ${answer.statusCode} ${answer.body.slice(0, 300)}`,
    );
}
