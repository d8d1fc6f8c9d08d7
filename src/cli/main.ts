import { ConfigError, loadConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { assistantAuthCommands } from './assistant-auth-commands.ts';
import { clientApiCommands } from './client-api-commands.ts';
import { type Command, contextFor, UsageError } from './command.ts';
import { contentCommands } from './content-commands.ts';
import { coreCommands } from './core-commands.ts';
import { directLineCommands } from './directline-commands.ts';
import { loadDemo, serveCommand } from './serve-command.ts';

const seedDemoCommand: Command = {
  name: 'seed-demo',
  usage: 'seed-demo',
  summary: 'Load the demo data set (keys, accounts, users…) and print its credentials.',
  async run(context) {
    return loadDemo(await context.core());
  },
};

/** Every command of the `sintonia` bin, in the order `sintonia help` lists them. */
export const commands: Command[] = [
  serveCommand,
  ...coreCommands,
  ...assistantAuthCommands,
  ...directLineCommands,
  ...clientApiCommands,
  ...contentCommands,
  seedDemoCommand,
];

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

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    process.stdout.write(`${help()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    process.stderr.write(`sintonia: unknown command "${argv.join(' ')}"\n\n${help()}\n`);
    return 2;
  }
  const opened: { core?: Core } = {};
  try {
    const config = loadConfig();
    const result = await found.command.run(
      contextFor(found.rest, config, opened, found.command === serveCommand ? 'stdout' : 'stderr'),
    );
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(
        `sintonia ${found.command.name}: ${error.message}\nusage: sintonia ${found.command.usage}\n`,
      );
      return 2;
    }
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
