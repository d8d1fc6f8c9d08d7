import { readFileSync } from 'node:fs';
import type { Config } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { startTracing } from '../core/tracing/tracing.ts';
import { type Command, contextFor, options, UsageError } from './command.ts';

/**
 * A command of the list below: its name, usage and summary are spelled here, and its module (with the
 * services, the database drivers, TypeBox…) is imported only when the command runs, so `sintonia --help`
 * and an unknown command load none of them.
 */
interface LazyCommand extends Command {
  load(): Promise<Command>;
}

function lazy(
  load: () => Promise<Command[]>,
  { name, usage, summary }: Pick<Command, 'name' | 'usage' | 'summary'>,
): LazyCommand {
  const implementation = async () => {
    const found = (await load()).find((command) => command.name === name);
    if (!found) throw new Error(`the module of command "${name}" does not define it`);
    return found;
  };
  return {
    name,
    usage,
    summary,
    load: implementation,
    async run(context) {
      return (await implementation()).run(context);
    },
  };
}

const serve = async () => [(await import('./serve-command.ts')).serveCommand];
const core = async () => (await import('./core-commands.ts')).coreCommands;
const assistantAuth = async () => (await import('./assistant-auth-commands.ts')).assistantAuthCommands;
const directLine = async () => (await import('./directline-commands.ts')).directLineCommands;
const clientApi = async () => (await import('./client-api-commands.ts')).clientApiCommands;
const content = async () => (await import('./content-commands.ts')).contentCommands;
const store = async () => (await import('./store-commands.ts')).storeCommands;

/**
 * Copies of `serviceNames` (core/core.ts), `keyClasses` (core/api-keys/api-keys.ts), `contentsTypes`
 * (client-api/ad-info/contents-types.ts) and the ad-break positions (content-commands.ts): the help text loads
 * none of those modules.
 */
const services = 'client-api,assistant-auth,agents';
const keyClasses = 'runtime|gateway|client|backoffice';
const contents = 'Voditems|Events|Channels|Commercials|U7d|Npvr|Ltcu';
const positions = 'preroll|midroll|postroll';

const seedDemoCommand: Command = {
  name: 'seed-demo',
  usage: 'seed-demo',
  summary: 'Load the demo data set (keys, accounts, users…) and print its credentials.',
  async run(context) {
    options(context.args, {});
    const { loadDemo } = await import('./serve-command.ts');
    return loadDemo(await context.core());
  },
};

/** Every command of the `sintonia` bin, in the order `sintonia help` lists them. */
export const commands: Command[] = [
  lazy(serve, {
    name: 'serve',
    usage: `serve [--service ${services}]`,
    summary: 'Run the services (all three by default) until SIGTERM or SIGINT.',
  }),
  lazy(core, {
    name: 'migrate',
    usage: 'migrate [--dry-run]',
    summary:
      'Apply pending database migrations (also done at every start) and list them; --dry-run lists them only.',
  }),
  lazy(core, {
    name: 'key create',
    usage: `key create --class ${keyClasses} --name NAME`,
    summary: 'Create an API key; the key is printed this once and stored only as a hash.',
  }),
  lazy(core, { name: 'key list', usage: 'key list', summary: 'List API keys (never their secrets).' }),
  lazy(core, {
    name: 'key revoke',
    usage: 'key revoke ID',
    summary: 'Revoke an API key; every process refuses it on its next request.',
  }),
  lazy(store, {
    name: 'master-key rotate',
    usage: 'master-key rotate',
    summary:
      'Move the store to SINTONIA_MASTER_KEY: what SINTONIA_MASTER_KEY_PREVIOUS sealed is sealed again and the fingerprint moves, in one transaction; run it again after the processes restarted (docs/keys-and-backups.md).',
  }),
  lazy(store, {
    name: 'backup',
    usage: 'backup --out FILE',
    summary:
      'Copy the embedded store (SQLite) into a new FILE while it serves: a consistent copy of every transaction committed before it; on PostgreSQL use pg_dump.',
  }),
  lazy(assistantAuth, {
    name: 'signing-key rotate',
    usage: 'signing-key rotate',
    summary:
      "Rotate the assistant's signing keys: the new ones are published now and sign after SIGNING_KEY_PUBLISH_LEAD.",
  }),
  lazy(assistantAuth, {
    name: 'callback-param',
    usage: 'callback-param --payload JSON',
    summary:
      'Seal a gateway callback parameter `data` from {identity, channel, phoneNumber?, accountNumber?, platformUserId?, exp?, nonce?} (exp and nonce filled in when absent; accountNumber links the user to that pay-TV account).',
  }),
  lazy(directLine, {
    name: 'directline-secret',
    usage: 'directline-secret',
    summary:
      'Print the embedded Direct Line channel’s secret (Bearer of /v3/directline/tokens/generate); it follows the master key.',
  }),
  lazy(clientApi, {
    name: 'account create',
    usage: 'account create --account-number N',
    summary: 'Create a client-api account; prints its number and userHash.',
  }),
  lazy(clientApi, {
    name: 'account stream-limit',
    usage: 'account stream-limit --account N --limit L',
    summary:
      "Set how many streams an account may play at once (0-20), in place of PLAYBACK_STREAM_LIMIT; prints the account's limit.",
  }),
  lazy(clientApi, {
    name: 'user create',
    usage: 'user create --account N --email E --password-file FILE|--password-stdin [--profile NAME …]',
    summary:
      'Create a user of an account (password stored as a scrypt hash), the password read from a file or standard input; prints the user.',
  }),
  lazy(content, {
    name: 'ad-break set',
    usage: `ad-break set --contents ${contents} --content ID --position ${positions} --offset SECONDS --max-ads N`,
    summary:
      "Set an ad break of a content in the local ad table (replaces the contents type's default breaks).",
  }),
  lazy(content, {
    name: 'ad-break delete',
    usage: `ad-break delete --contents ${contents} --content ID --position ${positions} --offset SECONDS`,
    summary: 'Remove an ad break of a content from the local ad table.',
  }),
  lazy(content, {
    name: 'ad-break list',
    usage: `ad-break list --contents ${contents} --content ID`,
    summary: 'List the ad breaks stored for a content (none: the defaults of its contents type apply).',
  }),
  lazy(content, {
    name: 'mail outbox',
    usage: 'mail outbox',
    summary: 'Count the e-mail outbox by status (pending, sent, failed) and show the oldest pending.',
  }),
  seedDemoCommand,
];

/**
 * The command as its own module defines it (the entry of `commands` itself when it is defined here), for
 * a test to check that each entry's name, usage and summary are still those of its module.
 */
export function implementationOf(command: Command): Promise<Command> {
  return 'load' in command ? (command as LazyCommand).load() : Promise.resolve(command);
}

function help(): string {
  return [
    'usage: sintonia COMMAND [options]',
    '',
    ...commands.flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
    '',
    'Every admin command prints one JSON object on stdout; bad input exits 2, a failure 1.',
    'Configuration comes from environment variables; see the README.',
  ].join('\n');
}

/** The services `serve` was asked for (all three without --service), as its arguments name them. */
function servedServices(args: string[]): string[] {
  const at = args.findIndex((arg) => arg === '--service' || arg.startsWith('--service='));
  const list =
    at === -1 ? services : args[at]?.includes('=') ? args[at].slice('--service='.length) : args[at + 1];
  return (list ?? services).split(',').map((name) => name.trim());
}

/** Finds the longest command name that the arguments start with (`key create` before `key`). */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const sorted = [...commands].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  for (const command of sorted) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word))
      return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

/** The package's version, from its package.json (two folders up from both src/cli and dist/cli). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return `sintonia ${(manifest as { version: string }).version}`;
}

/** The commands of a group (`key` → key create, key list, key revoke); none when `word` names no group. */
function groupOf(word: string | undefined): Command[] {
  return commands.filter((command) => command.name.includes(' ') && command.name.split(' ')[0] === word);
}

function groupHelp(group: Command[]): string {
  const name = group[0]?.name.split(' ')[0];
  return [
    `usage: sintonia ${name} SUBCOMMAND [options]`,
    '',
    ...group.flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
  ].join('\n');
}

const asksHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    // Asked for: on stdout, exit 0. Nothing asked: on stderr, exit 2, as a missing command is bad input.
    (argv.length === 0 ? process.stderr : process.stdout).write(`${help()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-V') {
    if (argv.length > 1) {
      process.stderr.write(`sintonia: --version takes no argument; got "${argv[1]}"\n`);
      return 2;
    }
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    const group = groupOf(argv[0]);
    if (group.length > 0) {
      if (asksHelp(argv.slice(1))) {
        process.stdout.write(`${groupHelp(group)}\n`);
        return 0;
      }
      const problem =
        argv.length === 1 || argv[1]?.startsWith('-')
          ? 'a subcommand is missing'
          : `unknown subcommand "${argv[1]}"`;
      process.stderr.write(`sintonia ${argv[0]}: ${problem}\n${groupHelp(group)}\n`);
      return 2;
    }
    process.stderr.write(`sintonia: unknown command "${argv.join(' ')}"\n\n${help()}\n`);
    return 2;
  }
  if (asksHelp(found.rest)) {
    process.stdout.write(`usage: sintonia ${found.command.usage}\n  ${found.command.summary}\n`);
    return 0;
  }
  const serving = found.command.name === 'serve';
  const opened: { config?: Config; core?: Core } = {};
  const context = contextFor(found.rest, opened, serving ? 'stdout' : 'stderr');
  try {
    // Before the services' modules are imported (the serve command imports them), so they are traced.
    let tracing: Awaited<ReturnType<typeof startTracing>> | undefined;
    if (serving) {
      await context.config();
      tracing = await startTracing(process.env, servedServices(found.rest));
    }
    const result = await found.command.run(context).finally(() => tracing?.shutdown());
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(
        `sintonia ${found.command.name}: ${error.message}\nusage: sintonia ${found.command.usage}\n`,
      );
      return 2;
    }
    // Imported here, on a failure only: the configuration's module needs TypeBox.
    const { ConfigError } = await import('../core/config.ts');
    if (error instanceof ConfigError) {
      process.stderr.write(`sintonia: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(
      `sintonia ${found.command.name}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    await opened.core?.close();
  }
}
