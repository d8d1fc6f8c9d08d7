import type { Core } from '../../core/core.ts';
import { createEmbeddedChannel } from '../directline/embedded-channel.ts';
import type { AssistantSigner } from '../signing/signer.ts';
import type { ConversationChannel, EmbeddedConversationChannel } from './conversation-channel.ts';
import { createDirectLineClient } from './directline-client.ts';

/**
 * The conversation channel of /token: the external Direct Line service when DIRECTLINE_URL is set (it
 * needs DIRECTLINE_SECRET too; a missing secret stops the start), else the embedded channel.
 */
export function selectConversationChannel(
  core: Core,
  signer: AssistantSigner,
): ConversationChannel | EmbeddedConversationChannel {
  const { DIRECTLINE_URL: url, DIRECTLINE_SECRET: secret } = core.config;
  if (url) {
    if (!secret) throw new Error('DIRECTLINE_URL is set but DIRECTLINE_SECRET is not');
    return createDirectLineClient(core, { url, secret });
  }
  return createEmbeddedChannel(core, signer);
}

export function isEmbedded(
  channel: ConversationChannel | EmbeddedConversationChannel,
): channel is EmbeddedConversationChannel {
  return 'registerRoutes' in channel;
}
