import { parseArgs } from 'node:util';
import type { Config } from '../core/config.ts';
import type { Core } from '../core/core.ts';

/** A usage mistake: printed as is, exit code 2. */
export class UsageError extends Error {}

export interface CommandContext {
  args: string[];
  /**
   * The configuration, read from the environment once, when a command first asks: a command refuses bad
   * input before it loads the configuration's schema (TypeBox), let alone the store.
   */
  config(): Promise<Config>;
  /** Opens the core (migrating first) once; closed by the runner when the command ends. */
  core(): Promise<Core>;
}

export interface Command {
  /** `key create`, `migrate`, … */
  name: string;
  usage: string;
  summary: string;
  /** Returns the one JSON object the command prints on stdout; `serve` never returns until stopped. */
  run(context: CommandContext): Promise<unknown>;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/**
 * Parses options strictly: an unknown option, a missing value, an option given twice (unless `multiple`)
 * or more arguments than `positionals` is a UsageError naming it.
 */
export function options<S extends OptionSpec>(
  args: string[],
  spec: S,
  required: Array<keyof S & string> = [],
  positionals = 0,
) {
  let parsed: ReturnType<
    typeof parseArgs<{ options: S; allowPositionals: true; strict: true; tokens: true }>
  >;
  try {
    parsed = parseArgs({ args, options: spec, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || spec[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  const extra = parsed.positionals[positionals];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  for (const name of required) {
    const value = (parsed.values as Record<string, unknown>)[name];
    if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  }
  return parsed;
}

export function contextFor(
  args: string[],
  opened: { config?: Config; core?: Core },
  logTo: 'stdout' | 'stderr',
): CommandContext {
  const config = async () => {
    // Imported when a command first asks: the schema needs TypeBox, which a refused command does not.
    opened.config ??= (await import('../core/config.ts')).loadConfig();
    return opened.config;
  };
  return {
    args,
    config,
    async core() {
      if (!opened.core) {
        // Imported when a command first opens the core, not at the top: `sintonia --help` never loads it.
        const { createLogger, openCore } = await import('../core/core.ts');
        const loaded = await config();
        opened.core = await openCore(loaded, { logger: createLogger(loaded, logTo) });
      }
      return opened.core;
    },
  };
}
