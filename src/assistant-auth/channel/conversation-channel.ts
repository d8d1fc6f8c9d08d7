/**
 * What a channel token request may say: the Direct Line user id to bind (`dl_…`), the person the
 * conversation speaks for, and a caller's abort.
 */
export interface ChannelTokenOptions {
  userId?: string;
  /**
   * The assistantId of the person the conversation speaks for, found or created when called: only a
   * channel that can bind conversations calls it (the embedded one); the others refuse before.
   */
  speaker?: () => Promise<string>;
  signal?: AbortSignal;
}

/** Direct Line 3.0 `POST /v3/directline/tokens/generate` answer. */
export interface ChannelToken {
  token: string;
  /** Seconds until the token expires. */
  expires_in: number;
  conversationId: string;
}

/**
 * Direct Line 3.0 `POST /v3/directline/conversations` answer: a token bound to a new conversation, the
 * websocket URL to read its activities from, and whatever further fields the channel adds.
 */
export interface ChannelStreamToken extends ChannelToken {
  streamUrl: string;
  referenceGrammarId?: string;
  eTag?: string;
  [field: string]: unknown;
}

/** A conversation channel compatible with Direct Line 3.0: an external service or the embedded one. */
export interface ConversationChannel {
  /** `external` (DIRECTLINE_URL) or `embedded`: for logs and /token's answers. */
  readonly kind: 'external' | 'embedded';
  token(options: ChannelTokenOptions): Promise<ChannelToken>;
  streamToken(options: ChannelTokenOptions): Promise<ChannelStreamToken>;
}
