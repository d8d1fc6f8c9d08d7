import { readFileSync } from 'node:fs';
import Type, { type Static, type TSchema } from 'typebox';
import Value from 'typebox/value';
import { agentsVariables } from './config/agents.ts';
import { assistantAuthVariables } from './config/assistant-auth.ts';
import { clientApiVariables } from './config/client-api.ts';
import { familyVariables } from './config/family.ts';
import { retentionVariables } from './config/retention.ts';

/**
 * Every environment variable of the family, in one schema: the type, the defaults, the validation and
 * the README's table all come from here. Durations are in seconds unless the name ends in `_MS`. Each
 * area's variables live in src/core/config/; their order here is the README's.
 */
export const configSchema = Type.Object({
  ...familyVariables,
  ...clientApiVariables,
  ...assistantAuthVariables,
  ...agentsVariables,
  ...retentionVariables,
});

export type Config = Static<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment once; the message of a ConfigError names each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseAgainst(configSchema, env);
}

type Properties = Record<string, Record<string, unknown>>;
const propertiesOf = (schema: TSchema) => (schema as unknown as { properties: Properties }).properties;

/** Where each secret read from a file came from (`NAME` → the path of `NAME_FILE`), per parsed config. */
const secretFiles = new WeakMap<object, Map<string, string>>();

/** The file a secret variable was read from (its `NAME_FILE`), if it was. */
export function secretFileOf(config: object, name: string): string | undefined {
  return secretFiles.get(config)?.get(name);
}

/**
 * A secret variable's value from `NAME`, or from the file `NAME_FILE` names (one trailing newline
 * stripped). Both set, an unreadable file or an empty one is a problem naming them.
 */
function readSecret(
  name: string,
  env: NodeJS.ProcessEnv,
): { value?: string; file?: string; problem?: string } {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (file === undefined || file === '') return { value: direct === '' ? undefined : direct };
  if (direct !== undefined && direct !== '') {
    return { problem: `${name} and ${name}_FILE are both set: set one of them` };
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return { problem: `${name}_FILE=${JSON.stringify(file)}: cannot read the file (${reason})` };
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') return { problem: `${name}_FILE=${JSON.stringify(file)}: the file is empty` };
  return { value, file };
}

function parseAgainst<S extends TSchema>(schema: S, env: NodeJS.ProcessEnv): Static<S> {
  const properties = propertiesOf(schema);
  const raw: Record<string, string> = {};
  const files = new Map<string, string>();
  const problems: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (property.secret === true) {
      const read = readSecret(name, env);
      if (read.problem) problems.push(read.problem);
      if (read.file) files.set(name, read.file);
      if (read.value !== undefined) raw[name] = read.value;
      continue;
    }
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const value = Value.Convert(schema, Value.Default(schema, raw));
  for (const error of Value.Errors(schema, value)) {
    const name = error.instancePath.replace(/^\//, '');
    // A secret's value is never printed: only where it came from.
    const shown = files.has(name)
      ? `${name} (from ${name}_FILE=${JSON.stringify(files.get(name))})`
      : properties[name]?.secret === true
        ? `${name}=${redacted(raw[name] ?? '')}`
        : `${name}=${JSON.stringify(raw[name] ?? '')}`;
    problems.push(`${shown}: ${error.message}`);
  }
  if (problems.length === 0) problems.push(...crossChecks(value as Record<string, unknown>));
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  secretFiles.set(value as object, files);
  return value as Static<S>;
}

/** A secret for an error message: a URL with its password masked, anything else only its length. */
function redacted(value: string): string {
  const url = parsedUrl(value);
  if (!url) return `(${value.length} characters, not shown)`;
  if (url.password) url.password = '***';
  return JSON.stringify(url.toString());
}

function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** Variables that only make sense with another. */
function crossChecks(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (config.SINTONIA_MASTER_KEY_PREVIOUS !== undefined && config.SINTONIA_MASTER_KEY === undefined) {
    problems.push('SINTONIA_MASTER_KEY_PREVIOUS is set without SINTONIA_MASTER_KEY (the key rotated to)');
  }
  if (config.SMTP_PASSWORD !== undefined) {
    const url = typeof config.SMTP_URL === 'string' ? parsedUrl(config.SMTP_URL) : undefined;
    if (!url?.username) {
      problems.push('SMTP_PASSWORD is set without an SMTP_URL that names its user (smtp://user@host:port)');
    }
  }
  return problems;
}

/**
 * The table of variables for the README: name, default, meaning; each secret is followed by its
 * `NAME_FILE` variant.
 */
export function describeConfig(): Array<{ name: string; fallback: string; description: string }> {
  return Object.entries(propertiesOf(configSchema)).flatMap(([name, property]) => {
    const row = {
      name,
      fallback: property.default === undefined ? '' : String(property.default),
      description: String(property.description ?? ''),
    };
    if (property.secret !== true) return [row];
    const file = {
      name: `${name}_FILE`,
      fallback: '',
      description: `Path of a file holding ${name} (a mounted secret; one trailing newline is ignored). Setting both is an error.`,
    };
    return [row, file];
  });
}
