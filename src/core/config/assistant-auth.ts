import Type from 'typebox';
import { optionalKey, optionalUrl, seconds, secret } from './kinds.ts';

/** assistant-auth's variables: its keys and tokens, the assistant's users and the embedded Direct Line channel. */
export const assistantAuthVariables = {
  GATEWAY_CALLBACK_KEY: optionalKey(
    'AES-256-GCM key shared with the gateway for the ciphered callback parameter. Default: derived from the master key.',
  ),
  SIGNING_KEYS_SECRET: optionalKey(
    "Key that encrypts the assistant's signing keys at rest. Default: derived from the master key.",
  ),
  SIGNED_TOKEN_TTL: seconds(300, 'Lifetime of a JWT the assistant signs for its outgoing requests.'),
  DELEGATION_TTL: Type.Integer({
    minimum: 30,
    maximum: 300,
    default: 300,
    description:
      'Lifetime of a delegated token (POST /users/{assistantId}/delegations) with which the assistant acts on its linked account in client-api; at most 300.',
  }),
  SIGNING_KEY_PUBLISH_LEAD: seconds(
    600,
    'After `signing-key rotate`, new signing keys are published this long before they sign (longer than the JWKS cache lifetime, 300 s).',
  ),
  CLOUD_STORAGE_SUBDOMAIN: Type.String({
    default: 'sintonia-assets',
    minLength: 1,
    description: 'Cloud storage subdomain returned by GET /config.',
  }),
  ASSISTANT_ID_TTL: seconds(30 * 86400, 'Lifetime of an assistantId unless its channel has its own.'),
  ASSISTANT_ID_TTL_BY_CHANNEL: Type.String({
    default: '',
    pattern: '^([a-z0-9_-]+=[0-9]+(,[a-z0-9_-]+=[0-9]+)*)?$',
    description: 'Per-channel assistantId lifetimes in seconds, e.g. `whatsapp=86400,web=3600`.',
  }),
  ASSISTANT_USER_RETENTION: seconds(
    30 * 86400,
    'An expired assistant user record is kept this long (GET /users/{id} answers 410 meanwhile), then removed.',
  ),
  DIRECTLINE_URL: optionalUrl(
    'Direct Line 3.0 compatible service for /token; unset uses the embedded channel.',
  ),
  DIRECTLINE_SECRET: secret({ minLength: 1, description: 'Secret of the external Direct Line service.' }),
  CHANNEL_RETENTION: seconds(
    7 * 86400,
    'How long the embedded channel keeps a conversation after its last activity; 0 keeps them forever.',
  ),
  DIRECTLINE_TOKEN_TTL: Type.Integer({
    minimum: 60,
    maximum: 86400,
    default: 3600,
    description: 'Lifetime of a token of the embedded Direct Line channel (refresh before it ends).',
  }),
  DIRECTLINE_UPLOAD_LIMIT: Type.Integer({
    minimum: 1024,
    maximum: 64 * 1024 * 1024,
    default: 4 * 1024 * 1024,
    description:
      'Largest upload to the embedded Direct Line channel in bytes, all files of one upload together (413 above).',
  }),
  DIRECTLINE_TOKEN_UPLOAD_FILES: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 20,
    description:
      'Files a token of the embedded Direct Line channel may upload within any REQUEST_LIMIT_WINDOW; then 429 DIRECTLINE_UPLOAD_RATE_LIMITED with Retry-After. A token is bound to one conversation, so its refreshes share the count, which the store keeps (every process enforces it).',
  }),
  DIRECTLINE_TOKEN_UPLOAD_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 1024 ** 4,
    default: 8 * 1024 * 1024,
    description:
      'Bytes of files a token of the embedded Direct Line channel may upload within any REQUEST_LIMIT_WINDOW, counted like DIRECTLINE_TOKEN_UPLOAD_FILES; then 429 with Retry-After.',
  }),
  DIRECTLINE_CONVERSATION_UPLOAD_FILES: Type.Integer({
    minimum: 1,
    maximum: 1000000,
    default: 100,
    description:
      'Files one conversation of the embedded Direct Line channel may hold; past it uploads are 413 DIRECTLINE_CONVERSATION_UPLOADS_FULL until the conversation is removed (CHANNEL_RETENTION).',
  }),
  DIRECTLINE_CONVERSATION_UPLOAD_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 1024 ** 4,
    default: 32 * 1024 * 1024,
    description:
      'Bytes of files one conversation of the embedded Direct Line channel may hold (413 DIRECTLINE_CONVERSATION_UPLOADS_FULL above).',
  }),
  DIRECTLINE_UPLOAD_STORE_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 1024 ** 5,
    default: 1024 ** 3,
    description:
      'Bytes of uploaded files the embedded Direct Line channel keeps in the store, all conversations together (stored as base64: about 4/3 of it on disk); past it uploads are 429 DIRECTLINE_UPLOAD_STORE_FULL with Retry-After until the retention purge frees room.',
  }),
  DIRECTLINE_CONVERSATION_ACTIVITIES: Type.Integer({
    minimum: 10,
    maximum: 1000000,
    default: 2000,
    description:
      'Activities one conversation of the embedded Direct Line channel may hold, the assistant’s answers included; past it a client’s activity is 413 DIRECTLINE_CONVERSATION_FULL (start a new conversation). Counted on the conversation’s row: every process enforces it.',
  }),
  DIRECTLINE_CONVERSATION_ACTIVITY_BYTES: Type.Integer({
    minimum: 65536,
    maximum: 1073741824,
    default: 8 * 1024 * 1024,
    description:
      'Bytes of activities (as stored, JSON) one conversation of the embedded channel may hold, answers included; past it 413 DIRECTLINE_CONVERSATION_FULL.',
  }),
  DIRECTLINE_ACTIVITIES_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 60,
    description:
      'Activities clients may post to one conversation (so with any of its tokens) per minute; then 429 DIRECTLINE_RATE_LIMITED with Retry-After. Counted on the conversation’s row: every process enforces it.',
  }),
  DIRECTLINE_ACTIVITY_BYTES_PER_MINUTE: Type.Integer({
    minimum: 65536,
    maximum: 1073741824,
    default: 1024 * 1024,
    description:
      'Bytes of activities clients may post to one conversation per minute (at least one largest body, BODY_LIMIT); then 429 DIRECTLINE_RATE_LIMITED with Retry-After.',
  }),
  DIRECTLINE_CHANNEL_ACTIVITIES_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 10000000,
    default: 6000,
    description:
      'Activities clients may post to all conversations of the embedded channel together per minute; then 429 DIRECTLINE_CHANNEL_BUSY with Retry-After. Counted in the store (rate_limit_counters): every process shares it.',
  }),
  DIRECTLINE_CONVERSATIONS_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1000000,
    default: 600,
    description:
      'Conversations the embedded channel starts per minute, all callers together; then 429 DIRECTLINE_CHANNEL_BUSY with Retry-After. Counted in the store: every process shares it.',
  }),
  DIRECTLINE_STREAMS: Type.Integer({
    minimum: 1,
    maximum: 1000000,
    default: 10000,
    description:
      'WebSocket streams one process of the embedded channel holds open (one per conversation at most); past it an upgrade is 503 DIRECTLINE_STREAMS_FULL with Retry-After (clients fall back to polling or retry). Counted in the process.',
  }),
  DIRECTLINE_ALLOWED_ORIGINS: Type.String({
    default: '',
    pattern: '^( *(\\*|https?://[^\\s,/]+( *, *https?://[^\\s,/]+)*) *)?$',
    description:
      'Comma-separated origins (`https://shop.example`) whose pages may open the embedded Direct Line channel’s WebSocket streams, besides the chat page’s own (PUBLIC_BASE_URL’s, else http://HOST:ASSISTANT_AUTH_PORT); `*` allows any. An upgrade with another Origin is 403 DIRECTLINE_ORIGIN_NOT_ALLOWED; one without Origin (a non-browser client) passes.',
  }),
  DIRECTLINE_KEEPALIVE_MS: Type.Integer({
    minimum: 100,
    maximum: 600000,
    default: 15000,
    description:
      'How often the embedded channel sends an empty keep-alive message and a ping on each stream; a socket that missed the previous pong is dropped.',
  }),
  CHAT_PAGE: Type.Union([Type.Literal('auto'), Type.Literal('on'), Type.Literal('off')], {
    default: 'auto',
    description:
      'The chat page of assistant-auth (/chat: the stock Web Chat on an anonymous conversation token from POST /chat/token). auto: served when the demo data is loaded (SINTONIA_DEMO=1 on the embedded store); on: always; off: never (404).',
  }),
  CHAT_TOKEN_LIMIT: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 10,
    description:
      'Conversation tokens POST /chat/token (and the chat page’s sign-in) hand out per client address (IPv6 by /64) per REQUEST_LIMIT_WINDOW; then 429 with Retry-After. Counted in each process’s memory.',
  }),
  DIRECTLINE_AGENT: Type.String({
    default: 'assistant',
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    description: 'Agent of the agents server that answers the embedded channel’s conversations.',
  }),
};
