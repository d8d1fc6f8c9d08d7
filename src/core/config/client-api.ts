import Type from 'typebox';
import { optionalUrl, seconds, secret } from './kinds.ts';

/** client-api's variables, with the sign-in and request limits and the HTTP subsystems it calls. */
export const clientApiVariables = {
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
  PLAYBACK_STALE_AFTER: Type.Integer({
    minimum: 5,
    maximum: 86400,
    default: 90,
    description:
      "Seconds: a device's stream (PUT …/playback/{contentId}) with no report for this long is over: it no longer counts against the account's stream limit nor shows. A report is the PUT again or a bookmark save by the device.",
  }),
  PLAYBACK_STREAM_LIMIT: Type.Integer({
    minimum: 0,
    maximum: 20,
    default: 2,
    description:
      "Streams an account plays at once unless an operator set its own (PUT /accounts/{accountNumber}/stream-limit/{limit}); one more start is 409 STREAM_LIMIT_REACHED. Counted in the store under the account's lock: every process enforces it.",
  }),
  COMMAND_STREAMS: Type.Integer({
    minimum: 1,
    maximum: 1000000,
    default: 15000,
    description:
      "client-api's device command streams (GET /{deviceClass}/{deviceId}/commands, Server-Sent Events) one process holds open, one per device at most (a device's second stream replaces its first); past it a stream is 503 COMMAND_STREAMS_FULL with Retry-After. Counted in the process; each idle stream holds about 15–18 KiB of memory (docs/scaling.md).",
  }),
  COMMAND_STREAM_KEEPALIVE: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 25,
    description:
      "Seconds between the keep-alive comments of every command stream (one shared timer per process), under the 60 s idle timeout of common proxies. The same tick refreshes, in one update, the store's record of which streams the process holds; a record older than 3 ticks counts as gone (a dead process).",
  }),
  COMMAND_TTL: Type.Integer({
    minimum: 5,
    maximum: 86400,
    default: 60,
    description:
      'Seconds a command sent to a device stays valid: not acknowledged by then it reads as `expired` and is not sent again when the stream resumes (Last-Event-ID).',
  }),
  COMMANDS_PER_SENDER: Type.Integer({
    minimum: 1,
    maximum: 1000000,
    default: 30,
    description:
      "Commands one sender (a device, a delegated token's assistant user, an operator key) may send within REQUEST_LIMIT_WINDOW; then 429 COMMANDS_LIMITED with Retry-After. Counted in the store: every process enforces it.",
  }),
  COMMANDS_PER_DEVICE: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 50,
    description:
      'Commands a device may hold unacknowledged and unexpired (COMMAND_TTL); one more is 429 COMMANDS_PENDING_LIMITED with Retry-After (until the oldest expires). Counted in the store.',
  }),
  SMTP_URL: secret({
    pattern: '^smtps?://',
    description:
      'smtp://user:pass@host:port to deliver e-mail by SMTP; unset writes .eml files to the mail drop.',
  }),
  SMTP_PASSWORD: secret({
    minLength: 1,
    description:
      'Password of the SMTP_URL user (smtp://user@host:port), instead of one inside SMTP_URL. Needs SMTP_URL with a user name.',
  }),
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
    description:
      'Registration e-mail requests allowed per client address (IPv6 by /64) and per e-mail address per hour; then 429 REGISTRATION_RATE_LIMITED with Retry-After. Counted in the store.',
  }),
  REGISTRATION_MAIL_PER_HOUR: Type.Integer({
    minimum: 1,
    maximum: 10000000,
    default: 1000,
    description:
      'Registration e-mails queued per hour, all clients together; then 429 REGISTRATION_RATE_LIMITED with Retry-After. Counted in the store.',
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
    description:
      'Failed sign-ins allowed per client address (IPv6 by /64; any user names) within LOGIN_FAILURE_WINDOW.',
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
  CLIENT_API_PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^/?#]+$',
      description:
        "client-api's public origin (`https://tv.example`), the TV sign-in's issuer, the origin of its verification page and of a command stream ticket's streamUrl; unset: http://HOST:CLIENT_API_PORT.",
    }),
  ),
  DEVICE_GRANT_CLIENT_IDS: Type.String({
    default: 'smarttv,stb,console',
    pattern: '^[A-Za-z0-9_-]{1,24}(,[A-Za-z0-9_-]{1,24})*$',
    description:
      'Comma-separated public OAuth client ids of the TV sign-in with a code, one per device class: a TV signs in as the device class of its client id.',
  }),
  DEVICE_GRANT_TTL: Type.Integer({
    minimum: 60,
    maximum: 3600,
    default: 600,
    description:
      'Lifetime of a TV sign-in code (device_code and user_code), in seconds; an expired code is kept as long again (a late poll is told expired_token), then removed by the retention job.',
  }),
  DEVICE_GRANT_INTERVAL: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 5,
    description: 'Seconds a TV waits between polls of the token endpoint; faster is `slow_down` (+5 s).',
  }),
  DEVICE_GRANT_MAX_PENDING_PER_ADDRESS: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 5,
    description:
      'TV sign-in codes per client address that are waiting for approval or were refused, until each expires (DEVICE_GRANT_TTL): a refusal does not free its slot. One more is 429 temporarily_unavailable (PENDING_SIGN_INS_LIMITED) with Retry-After. Counted in the store: every process enforces the same limit.',
  }),
  DEVICE_GRANT_MAX_PENDING: Type.Integer({
    minimum: 1,
    maximum: 10000000,
    default: 10000,
    description:
      'TV sign-in codes waiting for approval overall, from every address; one more is 503 temporarily_unavailable (SIGN_INS_BUSY) with Retry-After. It also bounds the chance that a guessed code names a waiting TV: at most this many in 20^8 (docs/decisions.md). Counted in the store.',
  }),
  DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 20,
    description:
      'TV sign-ins one account may refuse whose codes have not expired yet (DEVICE_GRANT_TTL); one more refusal is 429 SIGN_IN_REFUSALS_LIMITED with Retry-After, and that code just waits until it expires. Counted in the store.',
  }),
  USER_CODE_MAX_FAILURES: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 5,
    description:
      'Wrong TV sign-in codes allowed per person (signed-in user or assistant user) within LOGIN_FAILURE_WINDOW; then 429 USER_CODE_THROTTLED with Retry-After. Only the window ends the count: a right code takes back its own attempt and nothing more.',
  }),
  USER_CODE_MAX_FAILURES_PER_ADDRESS: Type.Integer({
    minimum: 1,
    maximum: 1000000,
    default: 20,
    description: 'Wrong TV sign-in codes allowed per client address within LOGIN_FAILURE_WINDOW.',
  }),
};
