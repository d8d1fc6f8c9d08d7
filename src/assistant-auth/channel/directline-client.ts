import { subsystemErrors } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import type {
  ChannelStreamToken,
  ChannelToken,
  ChannelTokenOptions,
  ConversationChannel,
} from './conversation-channel.ts';
import { channelErrors } from './errors.ts';

interface DirectLineAnswer {
  conversationId?: unknown;
  token?: unknown;
  expires_in?: unknown;
  streamUrl?: unknown;
}

const SUBSYSTEM = 'directline';

/** An answer without a token, a conversation id or a lifetime is no answer: 502 like any other failure. */
function checked(answer: DirectLineAnswer | undefined, needsStream: boolean): ChannelStreamToken {
  const ok =
    answer !== undefined &&
    typeof answer.token === 'string' &&
    answer.token.length > 0 &&
    typeof answer.conversationId === 'string' &&
    typeof answer.expires_in === 'number' &&
    (!needsStream || typeof answer.streamUrl === 'string');
  if (!ok) {
    throw subsystemErrors.SUBSYSTEM_ERROR(`The ${SUBSYSTEM} subsystem answered without a usable token.`);
  }
  return answer as ChannelStreamToken;
}

/** A real client of a Direct Line 3.0 service at DIRECTLINE_URL, authenticated with DIRECTLINE_SECRET. */
export function createDirectLineClient(settings: {
  url: string;
  secret: string;
  /** How long one call may take (SUBSYSTEM_TIMEOUT_MS). */
  timeoutMs: number;
}): ConversationChannel {
  const base = settings.url.replace(/\/+$/, '');
  const call = (path: string, options: ChannelTokenOptions) => {
    // The service keeps its conversations, so the speaker cannot be stored beside them, and a `dl_…`
    // user id is no proof: any key may ask for any user id.
    if (options.speaker) throw channelErrors.CHANNEL_BINDING_UNSUPPORTED();
    return callSubsystem<DirectLineAnswer>({
      subsystem: SUBSYSTEM,
      url: `${base}/v3/directline/${path}`,
      method: 'POST',
      headers: { authorization: `Bearer ${settings.secret}` },
      body: options.userId ? { user: { id: options.userId } } : {},
      timeoutMs: settings.timeoutMs,
      signal: options.signal,
    });
  };

  return {
    kind: 'external',
    async token(options): Promise<ChannelToken> {
      const answer = checked((await call('tokens/generate', options)).body, false);
      return { token: answer.token, expires_in: answer.expires_in, conversationId: answer.conversationId };
    },
    async streamToken(options): Promise<ChannelStreamToken> {
      return checked((await call('conversations', options)).body, true);
    },
  };
}
