import { type Command, options, UsageError } from './command.ts';

export const assistantAuthCommands: Command[] = [
  {
    name: 'signing-key rotate',
    usage: 'signing-key rotate',
    summary:
      "Rotate the assistant's signing keys: the new ones are published now and sign after SIGNING_KEY_PUBLISH_LEAD.",
    async run(context) {
      options(context.args, {});
      const { composeAssistantAuth } = await import('../assistant-auth/composition.ts');
      const core = await context.core();
      const rotation = await composeAssistantAuth(core).signingKeys.rotate();
      await core.audit('cli', 'signing-key.rotate', rotation.created.map((key) => key.kid).join(','));
      return rotation;
    },
  },
  {
    name: 'callback-param',
    usage: 'callback-param --payload JSON',
    summary:
      'Seal a gateway callback parameter `data` from {identity, channel, phoneNumber?, accountNumber?, platformUserId?, exp?, nonce?} (exp and nonce filled in when absent; accountNumber links the user to that pay-TV account).',
    async run(context) {
      const { values } = options(context.args, { payload: { type: 'string' } }, ['payload']);
      let payload: unknown;
      try {
        payload = JSON.parse(String(values.payload));
      } catch {
        throw new UsageError('--payload must be a JSON object');
      }
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        throw new UsageError('--payload must be a JSON object');
      }
      const { makeCallbackParam } = await import('../assistant-auth/callbacks/callback-param.ts');
      const core = await context.core();
      try {
        const made = makeCallbackParam(core, payload as Parameters<typeof makeCallbackParam>[1]);
        return {
          data: made.data,
          exp: made.payload.exp,
          expiresAt: new Date(made.payload.exp * 1000).toISOString(),
        };
      } catch (error) {
        if (error instanceof RangeError) throw new UsageError(error.message);
        throw error;
      }
    },
  },
];
