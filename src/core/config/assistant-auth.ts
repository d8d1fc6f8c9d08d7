import Type from 'typebox';
import { optionalKey, optionalUrl, seconds } from './kinds.ts';

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
  DIRECTLINE_SECRET: Type.Optional(
    Type.String({ minLength: 1, description: 'Secret of the external Direct Line service.' }),
  ),
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
      'Conversation tokens POST /chat/token hands out per client address per REQUEST_LIMIT_WINDOW; then 429 with Retry-After. Counted in each process’s memory.',
  }),
  DIRECTLINE_AGENT: Type.String({
    default: 'assistant',
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    description: 'Agent of the agents server that answers the embedded channel’s conversations.',
  }),
};
