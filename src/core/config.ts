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

function parseAgainst<S extends TSchema>(schema: S, env: NodeJS.ProcessEnv): Static<S> {
  const known = Object.keys((schema as unknown as { properties: Record<string, unknown> }).properties);
  const raw: Record<string, string> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const value = Value.Convert(schema, Value.Default(schema, raw));
  const problems = [...Value.Errors(schema, value)].map((error) => {
    const name = error.instancePath.replace(/^\//, '');
    return `${name}=${JSON.stringify(raw[name] ?? '')}: ${error.message}`;
  });
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return value as Static<S>;
}

/** The table of variables for the README: name, default, meaning. */
export function describeConfig(): Array<{ name: string; fallback: string; description: string }> {
  const properties = (configSchema as unknown as { properties: Record<string, Record<string, unknown>> })
    .properties;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    fallback: property.default === undefined ? '' : String(property.default),
    description: String(property.description ?? ''),
  }));
}
