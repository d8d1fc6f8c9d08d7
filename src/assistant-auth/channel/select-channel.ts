import type { Core } from '../../core/core.ts';
import { createEmbeddedDirectLine, type EmbeddedDirectLine } from '../directline/embedded-channel.ts';
import type { AssistantSigner } from '../signing/signer.ts';
import type { ConversationChannel } from './conversation-channel.ts';
import { createDirectLineClient } from './directline-client.ts';

/**
 * The conversation channel of /token: the external Direct Line service when DIRECTLINE_URL is set (it
 * needs DIRECTLINE_SECRET too; a missing secret stops the start), else the embedded channel, which the
 * service also runs (`directLine`).
 */
export function selectConversationChannel(
  core: Core,
  signer: AssistantSigner,
): { channel: ConversationChannel; directLine?: EmbeddedDirectLine } {
  const { DIRECTLINE_URL: url, DIRECTLINE_SECRET: secret } = core.config;
  if (url) {
    if (!secret) throw new Error('DIRECTLINE_URL is set but DIRECTLINE_SECRET is not');
    return { channel: createDirectLineClient(core, { url, secret }) };
  }
  const directLine = createEmbeddedDirectLine(core, signer);
  return { channel: directLine.channel, directLine };
}
