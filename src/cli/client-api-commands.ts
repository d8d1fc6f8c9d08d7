import { OperatorInputError } from '../client-api/accounts/service.ts';
import { composeClientApi } from '../client-api/composition.ts';
import { type Command, options, UsageError } from './command.ts';

/** Operator input mistakes of the client-api services become usage errors (exit 2, message as is). */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OperatorInputError) throw new UsageError(error.message);
    throw error;
  }
}

export const clientApiCommands: Command[] = [
  {
    name: 'account create',
    usage: 'account create --account-number N',
    summary: 'Create a client-api account; prints its number and userHash.',
    async run(context) {
      const { values } = options(context.args, { 'account-number': { type: 'string' } }, ['account-number']);
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
    name: 'user create',
    usage: 'user create --account N --email E --password P [--profile NAME …]',
    summary: 'Create a user of an account (password stored as a scrypt hash); prints the user.',
    async run(context) {
      const { values } = options(
        context.args,
        {
          account: { type: 'string' },
          email: { type: 'string' },
          password: { type: 'string' },
          profile: { type: 'string', multiple: true },
        },
        ['account', 'email', 'password'],
      );
      const core = await context.core();
      const profiles = (values.profile ?? []) as string[];
      const { users } = composeClientApi(core);
      const user = await asUsage(() =>
        users.create({
          accountNumber: String(values.account),
          email: String(values.email),
          password: String(values.password),
          profiles,
        }),
      );
      await core.audit('cli', 'user.create', user.platformUserId);
      return user;
    },
  },
];
