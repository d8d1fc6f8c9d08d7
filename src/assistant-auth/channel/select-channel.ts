import type { Core } from '../../core/core.ts';
import type { AssistantSigner } from '../signing/signer.ts';
import type { ConversationChannel, EmbeddedConversationChannel } from './conversation-channel.ts';
import { createDirectLineClient } from './directline-client.ts';

type EmbeddedFactory = (core: Core, signer: AssistantSigner) => EmbeddedConversationChannel;

// Loaded by a computed specifier while the embedded channel (issue 8) is being written in parallel.
const EMBEDDED_MODULE = '../directline/embedded-channel.ts';

async function loadEmbeddedFactory(): Promise<EmbeddedFactory | undefined> {
  const specifier = new URL(EMBEDDED_MODULE, import.meta.url).href;
  try {
    const module = (await import(specifier)) as { createEmbeddedChannel?: EmbeddedFactory };
    return module.createEmbeddedChannel;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(error).includes('embedded-channel')) return undefined;
    throw error;
  }
}

/**
 * The conversation channel of /token: the external Direct Line service when DIRECTLINE_URL is set (it
 * needs DIRECTLINE_SECRET too), else the embedded channel; undefined when neither is available (503).
 */
export async function selectConversationChannel(
  core: Core,
  signer: AssistantSigner,
): Promise<ConversationChannel | EmbeddedConversationChannel | undefined> {
  const { DIRECTLINE_URL: url, DIRECTLINE_SECRET: secret } = core.config;
  if (url) {
    if (!secret) throw new Error('DIRECTLINE_URL is set but DIRECTLINE_SECRET is not');
    return createDirectLineClient(core, { url, secret });
  }
  const factory = await loadEmbeddedFactory();
  return factory ? factory(core, signer) : undefined;
}

export function isEmbedded(
  channel: ConversationChannel | EmbeddedConversationChannel | undefined,
): channel is EmbeddedConversationChannel {
  return channel !== undefined && 'registerRoutes' in channel;
}
