import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { exactTime } from '../iso-time.ts';

type CompilerOptions = Exclude<Parameters<BuildCompilerFromPool>[1], undefined>;
type RouteCompiler = FastifySchemaCompiler<unknown>;

/** A failure in ajv's shape, so each service's error policy words it like any other (error-handler.ts). */
export interface TextFailure {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

/** A compiled validator as Fastify calls it: ajv's, with its errors and (for root coercion) its schemaEnv. */
interface Validator {
  (data: unknown, context?: unknown): unknown;
  errors?: unknown[] | null;
  schemaEnv?: unknown;
}

const NUL = '\u0000';
/** The keyword of the NUL rule's failures. */
export const NUL_KEYWORD = 'nul';
export const NUL_MESSAGE = 'must not contain the character U+0000 (NUL)';

/** Everything but bytes is looked into: the router's and query parser's records have no Object prototype. */
function isRecord(value: object): value is Record<string, unknown> {
  return !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer);
}

/** Whether any string of `root`, or any property name, holds U+0000. A loop, not recursion: depth is the sender's. */
export function containsNul(root: unknown): boolean {
  if (typeof root === 'string') return root.includes(NUL);
  if (typeof root !== 'object' || root === null) return false;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes(NUL)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null && isRecord(value)) {
      for (const key of Object.keys(value)) {
        if (key.includes(NUL)) return true;
        pending.push(value[key]);
      }
    }
  }
  return false;
}

const pointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
/** Segments of a failure's path kept: a body nested thousands deep is named by its first levels. */
const MOST_SEGMENTS = 32;

/**
 * Where `root` holds U+0000 (JSON pointers; a property name at its object's place); the first few. Each
 * node keeps its parent, so a path is built only for a failure, never for every node of a deep body.
 */
export function nulFailures(root: unknown, most = 10): TextFailure[] {
  const failures: TextFailure[] = [];
  const nodes: Array<{ value: unknown; parent: number; key: string }> = [
    { value: root, parent: -1, key: '' },
  ];
  const pathOf = (index: number) => {
    const segments: string[] = [];
    for (let at = index; at > 0; at = nodes[at]?.parent ?? 0) segments.push(pointer(nodes[at]?.key ?? ''));
    segments.reverse();
    const kept = segments.slice(0, MOST_SEGMENTS).map((segment) => `/${segment}`);
    return `${kept.join('')}${segments.length > MOST_SEGMENTS ? '/…' : ''}`;
  };
  const fail = (index: number, message: string) =>
    failures.push({ keyword: NUL_KEYWORD, instancePath: pathOf(index), schemaPath: '', params: {}, message });
  for (let index = 0; index < nodes.length && failures.length < most; index += 1) {
    const value = nodes[index]?.value;
    if (typeof value === 'string') {
      if (value.includes(NUL)) fail(index, NUL_MESSAGE);
    } else if (Array.isArray(value)) {
      for (const [position, item] of value.entries())
        nodes.push({ value: item, parent: index, key: `${position}` });
    } else if (typeof value === 'object' && value !== null && isRecord(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes(NUL)) fail(index, 'must not have a property name with the character U+0000 (NUL)');
        else nodes.push({ value: item, parent: index, key });
      }
    }
  }
  return failures;
}

/** Whether a validation failure (as `attachValidation` hands it over) includes the NUL rule's. */
export function refusesNul(failure: { validation?: ReadonlyArray<{ keyword?: string }> }): boolean {
  return failure.validation?.some((item) => item.keyword === NUL_KEYWORD) ?? false;
}

/**
 * The family's one rule on text, at the validation boundary: no U+0000 in any string of a request part a
 * route declares (PostgreSQL cannot store it in text; no caller has a use for it). It runs with the part's
 * schema check and fails the same way, so every service answers it as its own validation failure.
 */
function refusingNul(validate: Validator): Validator {
  const checked: Validator = (data, context) => {
    const valid = validate(data, context);
    if (!containsNul(data)) {
      checked.errors = validate.errors;
      return valid;
    }
    checked.errors = [...(valid === false ? (validate.errors ?? []) : []), ...nulFailures(data)];
    return false;
  };
  if (validate.schemaEnv !== undefined) checked.schemaEnv = validate.schemaEnv;
  return checked;
}

/**
 * Fastify's ajv compiler, twice: path, query and header values arrive as text and are converted to
 * their declared types; a body carries its own types, so a number sent where a string is declared (or
 * a boolean for a number) is refused, never converted. The choice is made once per route and part, at
 * compile time: validating a request costs the same as with one compiler. Every part's check also
 * refuses U+0000 in its strings (refusingNul).
 */
export function strictBodyValidators() {
  const pool = AjvCompiler();
  return (externalSchemas: Record<string, unknown>, options: CompilerOptions = {}) => {
    const coercing = pool(externalSchemas as never, options) as unknown as RouteCompiler;
    const strict = pool(
      externalSchemas as never,
      {
        ...options,
        customOptions: { ...options.customOptions, coerceTypes: false },
      } as CompilerOptions,
    ) as unknown as RouteCompiler;
    const compile: RouteCompiler = (route) =>
      refusingNul((route.httpPart === 'body' ? strict : coercing)(route) as Validator) as never;
    return compile;
  };
}

/** What of ajv the date-time rule needs. */
interface FormatHost {
  addFormat(name: string, format: { type: 'string'; validate: (text: string) => boolean }): unknown;
}

/**
 * An ajv plugin, after ajv-formats: `format: date-time` takes only a time JavaScript holds exactly (no
 * leap second, no 24:00, no offset without minutes), so a handler's Date.parse of it is never NaN.
 */
export function exactDateTimes(ajv: FormatHost): FormatHost {
  ajv.addFormat('date-time', { type: 'string', validate: (text) => exactTime(text) !== undefined });
  return ajv;
}
