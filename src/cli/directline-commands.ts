import { channelSecret } from '../assistant-auth/directline/credentials.ts';
import type { Command } from './command.ts';

export const directLineCommands: Command[] = [
  {
    name: 'directline-secret',
    usage: 'directline-secret',
    summary:
      'Print the embedded Direct Line channel’s secret (Bearer of /v3/directline/tokens/generate); it follows the master key.',
    async run(context) {
      const core = await context.core();
      await core.audit('cli', 'directline.secret.read', 'directline');
      return { secret: channelSecret(core), tokensGenerate: '/v3/directline/tokens/generate' };
    },
  },
];
