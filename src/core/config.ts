import Type, { type Static, type TSchema } from 'typebox';
import Value from 'typebox/value';

/**
 * Every environment variable of the family, in one schema: the type, the defaults, the validation and
 * the README's table all come from here. Durations are in seconds unless the name ends in `_MS`.
 */
const port = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 65535, default: fallback, description });
const seconds = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 10 * 365 * 86400, default: fallback, description });
const optionalUrl = (description: string) =>
  Type.Optional(Type.String({ pattern: '^https?://', description }));
/** 32 random bytes, base64 or hex: a key shared with a peer or kept by the operator. */
const optionalKey = (description: string) =>
  Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$', description }));

export const configSchema = Type.Object({
  HOST: Type.String({ default: '127.0.0.1', minLength: 1, description: 'Address the services listen on.' }),
  CLIENT_API_PORT: port(8080, 'Port of client-api; 0 picks a free port.'),
  ASSISTANT_AUTH_PORT: port(8081, 'Port of assistant-auth; 0 picks a free port.'),
  AGENTS_PORT: port(8082, 'Port of the agents server; 0 picks a free port.'),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'Address clients reach assistant-auth at (issuer, jwks_uri, Direct Line stream URLs). Default http://HOST:ASSISTANT_AUTH_PORT.',
    }),
  ),
  SINTONIA_DATA_DIR: Type.String({
    default: './data',
    minLength: 1,
    description: 'Folder of the embedded store (SQLite), the generated master key and the mail drop.',
  }),
  SINTONIA_DEMO: Type.Union([Type.Literal('1'), Type.Literal('0')], {
    default: '1',
    description:
      '1: the first start on the embedded store loads the demo data set (demo account, users and one API key per class) and prints its credentials (SINTONIA_DATA_DIR/demo-credentials.json). 0: no demo data and no demo credentials; use 0 in production.',
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description: 'postgres://… to use PostgreSQL instead of the embedded SQLite store.',
    }),
  ),
  DATABASE_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 10,
    description:
      "Connections each process keeps to PostgreSQL (DATABASE_URL) for everything but the hot paths' single statements (DATABASE_PIPELINE_CONNECTIONS); every process of one store has its own, so the sum over the processes must stay under the server's max_connections.",
  }),
  DATABASE_PIPELINE_CONNECTIONS: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 2,
    description:
      "Pipelined PostgreSQL connections each process opens, on first use, for the hot paths' single statements (bookmark read and save, device list, session checks): the statements of one turn of the event loop leave in one write on one of them. 0 runs those statements on the pool instead. In addition to DATABASE_POOL_SIZE.",
  }),
  LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info', description: 'pino log level.' },
  ),
  SINTONIA_MASTER_KEY: optionalKey(
    'Root secret (32 bytes, hex or base64) from which the at-rest encryption and hashing keys are derived. When unset, one is generated into SINTONIA_DATA_DIR/master.key (mode 0600) on first start.',
  ),
  BODY_LIMIT: Type.Integer({
    minimum: 1024,
    maximum: 16 * 1024 * 1024,
    default: 65536,
    description: 'Largest request body in bytes (413 above).',
  }),
  BODY_MAX_DEPTH: Type.Integer({
    minimum: 2,
    maximum: 256,
    default: 32,
    description: 'Deepest nesting of a request body (400 above).',
  }),
  SHUTDOWN_DRAIN_MS: Type.Integer({
    minimum: 0,
    maximum: 600000,
    default: 500,
    description:
      'On SIGTERM, how long the services keep answering at least (with Connection: close, /readyz 503); they stop accepting once no request or connection came for 100 ms after it (at most half of SHUTDOWN_TIMEOUT_MS).',
  }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600000,
    default: 10000,
    description: 'How long a graceful shutdown waits for in-flight requests.',
  }),

  CLIENT_API_BASE_PATH: Type.String({
    default: '/api/v1',
    pattern: '^(/[A-Za-z0-9._~-]+)*$',
    description: 'Base path of every client-api operation.',
  }),
  ACCESS_TOKEN_TTL: seconds(900, 'Lifetime of a device access token (JWT).'),
  REFRESH_TOKEN_TTL: seconds(30 * 86400, 'Lifetime of a refresh token; each use rotates it.'),
  SESSION_IDLE_TIMEOUT: seconds(30 * 86400, 'A session unused for this long expires.'),
  DEVICE_DELETE_COOLDOWN: seconds(
    86400,
    'A device cannot be deleted for this long after its activation (409).',
  ),
  MAX_DEVICES_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    maximum: 10000,
    default: 10,
    description: 'Most enabled devices an account may hold.',
  }),
  PLAYING_WINDOW: seconds(60, 'A device counts as playing this long after it saved a bookmark.'),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      description:
        'smtp://user:pass@host:port to deliver e-mail by SMTP; unset writes .eml files to the mail drop.',
    }),
  ),
  MAIL_FROM: Type.String({
    default: 'Sintonia <no-reply@sintonia.invalid>',
    description: 'Sender of e-mails.',
  }),
  MAIL_DROP_DIR: Type.Optional(
    Type.String({ minLength: 1, description: 'Mail drop folder. Default SINTONIA_DATA_DIR/mail-drop.' }),
  ),
  REGISTRATION_RATE_LIMIT: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 5,
    description: 'Registration e-mail requests allowed per client address and per e-mail address per hour.',
  }),
  LOGIN_MAX_FAILURES: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 5,
    description:
      'Failed sign-ins allowed per user name within LOGIN_FAILURE_WINDOW; then 429 with Retry-After, even for the right password, until the window ends. Counted in the store: every process enforces the same limit. A success starts the count over.',
  }),
  LOGIN_MAX_FAILURES_PER_ADDRESS: Type.Integer({
    minimum: 1,
    maximum: 1000000,
    default: 20,
    description: 'Failed sign-ins allowed per client address (any user names) within LOGIN_FAILURE_WINDOW.',
  }),
  LOGIN_FAILURE_WINDOW: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 900,
    description: 'Window of the sign-in limits, in seconds, from its first failure.',
  }),
  TRUSTED_PROXIES: Type.String({
    default: '',
    pattern:
      '^( *([0-9A-Fa-f.:]+(/[0-9]{1,3})?|loopback|linklocal|uniquelocal) *(, *([0-9A-Fa-f.:]+(/[0-9]{1,3})?|loopback|linklocal|uniquelocal) *)*)?$',
    description:
      'Comma-separated addresses or CIDRs of the proxies whose X-Forwarded-For is believed (also `loopback`, `uniquelocal`); empty: the socket peer is the client address the sign-in and registration limits count.',
  }),
  CLIENT_API_DEVICE_REQUEST_LIMIT: Type.Integer({
    minimum: 0,
    maximum: 100000000,
    default: 0,
    description:
      'Requests per device (its access tokens) per REQUEST_LIMIT_WINDOW on client-api; then 429 RATE_LIMITED with Retry-After. Counted in each process’s memory, so N processes allow up to N times this. 0: no limit.',
  }),
  RUNTIME_KEY_REQUEST_LIMIT: Type.Integer({
    minimum: 0,
    maximum: 100000000,
    default: 0,
    description:
      'Requests per API key of class runtime per REQUEST_LIMIT_WINDOW, in every service, counted per process like the device limit. 0: no limit.',
  }),
  GATEWAY_KEY_REQUEST_LIMIT: Type.Integer({
    minimum: 0,
    maximum: 100000000,
    default: 0,
    description:
      'Requests per API key of class gateway per REQUEST_LIMIT_WINDOW, in every service, counted per process like the device limit. 0: no limit.',
  }),
  CLIENT_KEY_REQUEST_LIMIT: Type.Integer({
    minimum: 0,
    maximum: 100000000,
    default: 0,
    description:
      'Requests per API key of class client per REQUEST_LIMIT_WINDOW, in every service, counted per process like the device limit. 0: no limit.',
  }),
  BACKOFFICE_KEY_REQUEST_LIMIT: Type.Integer({
    minimum: 0,
    maximum: 100000000,
    default: 0,
    description:
      'Requests per API key of class backoffice (operators) per REQUEST_LIMIT_WINDOW, in every service, counted per process like the device limit. 0: no limit.',
  }),
  REQUEST_LIMIT_WINDOW: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 60,
    description: 'Fixed window of the per-principal request limits, in seconds.',
  }),
  CAMPAIGNS_URL: optionalUrl('Advertising-contacts subsystem; unset stores contacts locally.'),
  AD_DECISION_URL: optionalUrl('Ad decision service for ad-info; unset uses the local ad table.'),
  SUBSCRIPTIONS_URL: optionalUrl('Subscription back end for dth/enabled; unset uses the local store.'),
  SUBSYSTEM_TIMEOUT_MS: Type.Integer({
    minimum: 10,
    maximum: 120000,
    default: 3000,
    description: 'Timeout of a call to an HTTP subsystem (502 when exceeded).',
  }),
  MAIL_POLL_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 600000,
    default: 1000,
    description: 'How often the mail worker looks for due messages in the outbox.',
  }),
  MAIL_RETRY_BASE_MS: Type.Integer({
    minimum: 10,
    maximum: 3600000,
    default: 5000,
    description: 'First retry delay of a failed e-mail delivery; doubles per attempt, capped at one hour.',
  }),
  MAIL_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 50,
    description: 'Delivery attempts before an e-mail is marked failed (it stays in the outbox).',
  }),
  HOMEZONE_OFFERS: Type.String({
    default: 'HOMEZONE',
    pattern: '^[^,]+(,[^,]+)*$',
    description: 'Comma-separated codOferta values that make up a home-zone subscription (local store).',
  }),
  AD_VAST_TAG_URL: Type.String({
    default: 'https://ads.sintonia.invalid/vast',
    pattern: '^https?://',
    description: 'Base of the VAST tag URL that ad-info builds from its parameters (local ad table).',
  }),

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

  AGENTS_URL: optionalUrl('Agents server the embedded channel calls. Default http://HOST:AGENTS_PORT.'),
  ASSISTANT_RUNTIME_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'An API key of class runtime with which the agents server asks assistant-auth for delegated tokens, to act on a linked person’s pay-TV account. Unset: the account tools answer 400 AGENT_CONFIG_ERROR.',
    }),
  ),
  ASSISTANT_JWKS_URL: optionalUrl(
    'JWKS the agents server verifies JWTs with. Default: assistant-auth /openid/jwk.',
  ),
  MODEL_BASE_URL: optionalUrl('OpenAI-compatible endpoint of the chat agent (…/v1).'),
  MODEL_API_KEY: Type.Optional(
    Type.String({ minLength: 1, description: 'Bearer key of the model endpoint.' }),
  ),
  MODEL_NAME: Type.String({
    default: 'gpt-4o-mini',
    minLength: 1,
    description: 'Model the chat agent asks for.',
  }),
  MODEL_TIMEOUT_MS: Type.Integer({
    minimum: 10,
    maximum: 600000,
    default: 30000,
    description: 'Timeout of one model call.',
  }),
});

export type Config = Static<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment once; the message of a ConfigError names each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseAgainst(configSchema, env);
}

function parseAgainst<S extends TSchema>(schema: S, env: NodeJS.ProcessEnv): Static<S> {
  const known = Object.keys((schema as unknown as { properties: Record<string, unknown> }).properties);
  const raw: Record<string, string> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const value = Value.Convert(schema, Value.Default(schema, raw));
  const problems = [...Value.Errors(schema, value)].map((error) => {
    const name = error.instancePath.replace(/^\//, '');
    return `${name}=${JSON.stringify(raw[name] ?? '')}: ${error.message}`;
  });
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return value as Static<S>;
}

/** The table of variables for the README: name, default, meaning. */
export function describeConfig(): Array<{ name: string; fallback: string; description: string }> {
  const properties = (configSchema as unknown as { properties: Record<string, Record<string, unknown>> })
    .properties;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    fallback: property.default === undefined ? '' : String(property.default),
    description: String(property.description ?? ''),
  }));
}
