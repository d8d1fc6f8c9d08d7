import { readFileSync } from 'node:fs';
import { type Command, options, UsageError } from './command.ts';

/** Operator input mistakes of the client-api services become usage errors (exit 2, message as is). */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  const { OperatorInputError } = await import('../client-api/accounts/service.ts');
  try {
    return await work();
  } catch (error) {
    if (error instanceof OperatorInputError) throw new UsageError(error.message);
    throw error;
  }
}

/** Standard input, whole (a pipe or a file; a terminal is not waited on: nothing was piped). */
function readStdin(): string {
  if (process.stdin.isTTY) throw new UsageError('--password-stdin reads a password piped to it; none was');
  return readFileSync(0, 'utf8');
}

/**
 * The password from a file or standard input, its one line without the line break (as `docker login
 * --password-stdin` reads it): never from the command line, where every user of the host sees it in the
 * process list and the shell keeps it in its history.
 */
function passwordOf(values: { password?: unknown; 'password-file'?: unknown; 'password-stdin'?: unknown }) {
  if (values.password !== undefined) {
    throw new UsageError(
      '--password is refused: a password on the command line shows in the process list and the shell history; give it with --password-file FILE or --password-stdin',
    );
  }
  const file = values['password-file'];
  const stdin = values['password-stdin'] === true;
  if (file !== undefined && stdin) throw new UsageError('give --password-file or --password-stdin, not both');
  if (file === undefined && !stdin)
    throw new UsageError('--password-file FILE or --password-stdin is required');
  let text: string;
  try {
    text = stdin ? readStdin() : readFileSync(String(file), 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--password-file: ${(error as Error).message}`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password.includes('\n')) throw new UsageError('the password must be one line');
  if (password === '') throw new UsageError('the password is empty');
  return password;
}

export const clientApiCommands: Command[] = [
  {
    name: 'account create',
    usage: 'account create --account-number N',
    summary: 'Create a client-api account; prints its number and userHash.',
    async run(context) {
      const { values } = options(context.args, { 'account-number': { type: 'string' } }, ['account-number']);
      const { composeClientApi } = await import('../client-api/composition.ts');
      const core = await context.core();
      const { accounts } = composeClientApi(core);
      const account = await asUsage(() => accounts.create(String(values['account-number'])));
      await core.audit('cli', 'account.create', account.accountNumber);
      return {
        accountNumber: account.accountNumber,
        userHash: account.userHash,
        createdAt: new Date(account.createdAt).toISOString(),
      };
    },
  },
  {
    name: 'account stream-limit',
    usage: 'account stream-limit --account N --limit L',
    summary:
      "Set how many streams an account may play at once (0-20), in place of PLAYBACK_STREAM_LIMIT; prints the account's limit.",
    async run(context) {
      const { values } = options(context.args, { account: { type: 'string' }, limit: { type: 'string' } }, [
        'account',
        'limit',
      ]);
      const { STREAM_LIMIT_MAX } = await import('../client-api/playback/schemas.ts');
      const limit = Number(values.limit);
      if (!/^\d+$/.test(String(values.limit)) || limit > STREAM_LIMIT_MAX)
        throw new UsageError(`--limit is a whole number from 0 to ${STREAM_LIMIT_MAX}`);
      const { composeClientApi } = await import('../client-api/composition.ts');
      const { accountErrors } = await import('../client-api/accounts/errors.ts');
      const core = await context.core();
      const { playback } = composeClientApi(core);
      const accountNumber = String(values.account);
      try {
        await playback.setLimit(accountNumber, limit);
      } catch (error) {
        if ((error as { type?: unknown }).type === accountErrors.ACCOUNT_NOT_FOUND.type)
          throw new UsageError(`no account ${accountNumber}`);
        throw error;
      }
      await core.audit('cli', 'account.stream-limit', accountNumber);
      return { accountNumber, streamLimit: limit };
    },
  },
  {
    name: 'user create',
    usage: 'user create --account N --email E --password-file FILE|--password-stdin [--profile NAME …]',
    summary:
      'Create a user of an account (password stored as a scrypt hash), the password read from a file or standard input; prints the user.',
    async run(context) {
      const { values } = options(
        context.args,
        {
          account: { type: 'string' },
          email: { type: 'string' },
          password: { type: 'string' },
          'password-file': { type: 'string' },
          'password-stdin': { type: 'boolean' },
          profile: { type: 'string', multiple: true },
        },
        ['account', 'email'],
      );
      const password = passwordOf(values);
      const { composeClientApi } = await import('../client-api/composition.ts');
      const core = await context.core();
      const profiles = (values.profile ?? []) as string[];
      const { users } = composeClientApi(core);
      const user = await asUsage(() =>
        users.create({
          accountNumber: String(values.account),
          email: String(values.email),
          password,
          profiles,
        }),
      );
      await core.audit('cli', 'user.create', user.platformUserId);
      return user;
    },
  },
];
