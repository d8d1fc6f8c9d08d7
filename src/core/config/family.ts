import Type from 'typebox';
import { optionalKey, port, secret } from './kinds.ts';

/** What every service reads: where they listen, the store, logs, the master key, requests and shutdown. */
export const familyVariables = {
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
  METRICS_OPEN: Type.Union([Type.Literal('0'), Type.Literal('1')], {
    default: '0',
    description:
      "0: every service's /metrics takes any valid API key of the environment, as X-API-Key or Authorization: Bearer <key> (Prometheus' credentials_file). 1: /metrics answers without a key, for a network where only the scraper reaches the ports.",
  }),
  DATABASE_URL: secret({
    pattern: '^postgres(ql)?://',
    description: 'postgres://… to use PostgreSQL instead of the embedded SQLite store.',
  }),
  DATABASE_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 10,
    description:
      "Connections each process keeps to PostgreSQL (DATABASE_URL) for transactions (and a turn's writes run again one by one after their shared transaction rolled back), and for every statement when DATABASE_PIPELINE_CONNECTIONS is 0; every process of one store has its own, so the sum over the processes must stay under the server's max_connections.",
  }),
  DATABASE_PIPELINE_CONNECTIONS: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 2,
    description:
      'Pipelined PostgreSQL connections each process opens, on first use, for the reads outside a transaction, and as many again for the writes: the reads of one turn of the event loop leave in one write on one of them, and its writes in one transaction on another (one commit for all; while the last commit on that connection waits for its WAL flush, the writes of the next turns join the transaction, which commits once that answers). 0 runs those statements on the pool, one by one. In addition to DATABASE_POOL_SIZE.',
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
  SINTONIA_MASTER_KEY_PREVIOUS: optionalKey(
    'The master key being rotated away from (docs/keys-and-backups.md): a process opens what it sealed too, and starts on a store still recording it. Needs SINTONIA_MASTER_KEY.',
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
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600000,
    default: 20000,
    description:
      'How long a client may take to send the headers of a request, from its first byte; then 408 and the connection is closed (checked every second). Headers are a few KiB: 20 s closes a slow-headers (slowloris) connection well within a minute, even a slow mobile link sends them in a second.',
  }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 3600000,
    default: 55000,
    description:
      'How long a client may take to send a whole request, headers and body; then 408 and the connection is closed (checked every second). 55 s closes a slow-body connection within a minute and lets the largest upload of the defaults (DIRECTLINE_UPLOAD_LIMIT, 4 MiB) through at 0.6 Mbit/s, a slow mobile uplink; raise it with the upload limit or for slower links.',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600000,
    default: 72000,
    description:
      'How long an idle kept-alive connection stays open for its next request. Longer than the 60 s idle timeout of common proxies and load balancers, so they close first and never reuse a connection the service is closing.',
  }),
  SHUTDOWN_DRAIN_MS: Type.Integer({
    minimum: 0,
    maximum: 600000,
    default: 500,
    description:
      'On SIGTERM, how long the services keep answering at least (/readyz 503, connections kept alive); once no request or connection came for 100 ms after it (at most half of SHUTDOWN_TIMEOUT_MS) they stop accepting, and answer what the open connections still bring with Connection: close.',
  }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600000,
    default: 10000,
    description: 'How long a graceful shutdown waits for in-flight requests.',
  }),
};
