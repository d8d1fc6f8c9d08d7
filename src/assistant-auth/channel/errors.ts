import { defineErrors } from '../../core/errors.ts';

/** Error types of `/token` and `/token/wss` beyond their credentials and the channel's failure. */
export const channelErrors = defineErrors('assistant-auth/channel', {
  CHANNEL_BINDING_UNSUPPORTED: [
    400,
    'This environment’s conversation channel is an external Direct Line service (DIRECTLINE_URL), which cannot bind a conversation to a person; ask without X-Channel and X-Channel-User-Id for an anonymous conversation.',
  ],
  CHANNEL_SPEAKER_REMOVED: [
    409,
    'The channel identity’s assistant user was removed while its conversation was being bound; ask again.',
  ],
});
