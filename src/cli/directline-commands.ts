import { type Command, options } from './command.ts';

export const directLineCommands: Command[] = [
  {
    name: 'directline-secret',
    usage: 'directline-secret',
    summary:
      'Print the embedded Direct Line channel’s secret (Bearer of /v3/directline/tokens/generate); it follows the master key.',
    async run(context) {
      options(context.args, {});
      const { channelSecret } = await import('../assistant-auth/directline/credentials.ts');
      const core = await context.core();
      await core.audit('cli', 'directline.secret.read', 'directline');
      return { secret: channelSecret(core), tokensGenerate: '/v3/directline/tokens/generate' };
    },
  },
];
