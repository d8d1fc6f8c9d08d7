import type { Config } from '../../core/config.ts';
import type { EmbeddedDirectLine } from '../directline/embedded-channel.ts';
import type { ChannelTokenOptions, ConversationChannel } from './conversation-channel.ts';
import { createDirectLineClient } from './directline-client.ts';
import { channelErrors } from './errors.ts';

/**
 * The embedded channel with its conversations bound to a person when asked: the conversation row is
 * stored at once with its speaker, so refreshing, reconnecting and recovery all read it from there.
 */
function withSpeakers(directLine: EmbeddedDirectLine): ConversationChannel {
  const { channel, conversations } = directLine;
  const start = (options: ChannelTokenOptions) => ({
    user: options.userId ? { id: options.userId } : undefined,
  });
  const bound = <T>(answer: T | undefined): T => {
    if (answer === undefined) throw channelErrors.CHANNEL_SPEAKER_REMOVED();
    return answer;
  };
  return {
    kind: channel.kind,
    async token(options) {
      if (!options.speaker) return channel.token(options);
      return bound(await conversations.generateFor(await options.speaker(), start(options)));
    },
    async streamToken(options) {
      if (!options.speaker) return channel.streamToken(options);
      return { ...bound(await conversations.startFor(await options.speaker(), start(options))) };
    },
  };
}

/**
 * The conversation channel of /token: the external Direct Line service when DIRECTLINE_URL is set (it
 * needs DIRECTLINE_SECRET too; a missing secret stops the start), else the embedded channel, which the
 * service also runs (`directLine`).
 */
export function selectConversationChannel(
  settings: Pick<Config, 'DIRECTLINE_URL' | 'DIRECTLINE_SECRET' | 'SUBSYSTEM_TIMEOUT_MS'>,
  embedded: () => EmbeddedDirectLine,
): { channel: ConversationChannel; directLine?: EmbeddedDirectLine } {
  const { DIRECTLINE_URL: url, DIRECTLINE_SECRET: secret, SUBSYSTEM_TIMEOUT_MS: timeoutMs } = settings;
  if (url) {
    if (!secret) throw new Error('DIRECTLINE_URL is set but DIRECTLINE_SECRET is not');
    return { channel: createDirectLineClient({ url, secret, timeoutMs }) };
  }
  const directLine = embedded();
  return { channel: withSpeakers(directLine), directLine };
}
