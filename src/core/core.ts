import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { type ApiKeyStore, createApiKeyStore } from './api-keys/api-keys.ts';
import { withRequestLimits } from './api-keys/key-request-limits.ts';
import type { Config } from './config.ts';
import { createAuditRepository } from './db/audit-repository.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrator.ts';
import { createLocalEventBus, type EventBus, type OpenEventBus } from './events/event-bus.ts';
import { createPostgresEventBus } from './events/postgres-event-bus.ts';
import { type Keyring, loadMasterKeys, openKeyring } from './keys/master-keys.ts';
import { type CoreMetrics, createCoreMetrics } from './metrics/core-metrics.ts';
import { traceLogMixin } from './tracing/tracing.ts';

export { MasterKeyMismatchError } from './keys/master-keys.ts';

export const serviceNames = ['client-api', 'assistant-auth', 'agents'] as const;
export type ServiceName = (typeof serviceNames)[number];

const portVariable = {
  'client-api': 'CLIENT_API_PORT',
  'assistant-auth': 'ASSISTANT_AUTH_PORT',
  agents: 'AGENTS_PORT',
} as const satisfies Record<ServiceName, keyof Config>;

export function servicePort(config: Config, name: ServiceName): number {
  return config[portVariable[name]];
}

/** What every service of the family is built on; made once per process and shared. */
export interface Core {
  readonly config: Config;
  readonly database: Database;
  readonly logger: Logger;
  readonly apiKeys: ApiKeyStore;
  /** The store's and the API keys' metrics, which every service's /metrics shows. */
  readonly metrics: CoreMetrics;
  /**
   * Events between the processes of the store (src/core/events): LISTEN/NOTIFY on PostgreSQL, in
   * process on the embedded store. Closed with the core.
   */
  readonly events: EventBus;
  /**
   * A 32-byte key for one purpose (at-rest encryption, keyed hashes…), derived from the master key or
   * carried over a rotation; the purpose must be declared in src/core/keys/purposes.ts.
   */
  key(purpose: string): Buffer;
  /** Records an action without personal data: who (a key id, an operator, a service) did what to which id. */
  audit(actor: string, action: string, subject: string): Promise<void>;
  /**
   * Where a sibling service answers: the address it listens on in this process, else
   * http://HOST:PORT from the configuration. Services call each other over HTTP, never in-process.
   */
  serviceUrl(name: ServiceName): string;
  setServiceUrl(name: ServiceName, url: string): void;
  /** Set on SIGTERM: /readyz turns 503 and every response asks the client to close its connection. */
  readonly lifecycle: { draining: boolean };
  close(): Promise<void>;
}

/** Secrets that must never reach a log line, wherever they appear in a logged object. */
const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'password',
  'key',
  'secret',
  'token',
  '*.password',
  '*.key',
  '*.secret',
  '*.token',
];

/**
 * Standard output, written synchronously once per turn of the event loop: the lines a turn logs are
 * gathered and handed to the destination as one string in the check phase, written in one call, so a
 * line is out before the process waits for anything again. Asynchronous writes (sonic-boom's default)
 * went through libuv's thread pool, and each completion woke the event loop for one more short turn.
 * Handed over line by line, sonic-boom measures its whole buffered string again at every line, a cost
 * that grows with the lines of a turn (docs/decisions-performance.md). What a turn left is written at
 * exit. One per process, shared by every logger on stdout.
 */
let stdout: ReturnType<typeof pino.destination> | undefined;
function turnBatchedStdout() {
  stdout ??= batchedDestination();
  return stdout;
}

const BATCH_CHARS = 16 * 1024;

function batchedDestination() {
  const destination = pino.destination({ fd: 1, sync: true, minLength: BATCH_CHARS - 1 });
  const write = destination.write.bind(destination);
  const flush = destination.flush.bind(destination);
  const flushSync = destination.flushSync.bind(destination);
  let pending = '';
  const handOver = () => {
    if (pending === '') return;
    const lines = pending;
    pending = '';
    write(lines);
  };
  const endTurn = () => {
    handOver();
    flush();
  };
  destination.write = (line: string) => {
    if (pending === '') setImmediate(endTurn);
    pending += line;
    // A turn that logs a great deal is written as it goes, 16 KiB at a time, not held whole.
    if (pending.length >= BATCH_CHARS) handOver();
    return true;
  };
  destination.flush = (callback?: (error?: Error) => void) => {
    handOver();
    flush(callback);
  };
  destination.flushSync = () => {
    handOver();
    flushSync();
  };
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // Standard output closed under us: nothing left to write to.
    }
  });
  return destination;
}

/**
 * JSON logs on stdout, or on stderr for admin commands whose stdout is their one JSON answer; the tests
 * pass a stream of their own to read what the services log.
 */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'>,
  stream: 'stdout' | 'stderr' | Writable = 'stdout',
): Logger {
  const destination =
    stream === 'stdout'
      ? turnBatchedStdout()
      : stream === 'stderr'
        ? pino.destination({ fd: 2, sync: true })
        : stream;
  // While tracing is on, every line carries the trace and span ids of the span in progress.
  const mixin = traceLogMixin();
  return pino(
    {
      level: config.LOG_LEVEL,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      ...(mixin ? { mixin } : {}),
    },
    destination,
  );
}

export async function openCore(
  config: Config,
  options: { migrate?: boolean; logger?: Logger } = {},
): Promise<Core> {
  const logger = options.logger ?? createLogger(config);
  const masterKeys = loadMasterKeys(config);
  const master = masterKeys.current;
  if (master.generated) {
    logger.warn({ file: master.source }, 'generated a master key; set SINTONIA_MASTER_KEY in production');
  }
  const database = openDatabase(config);
  let keyring: Keyring;
  try {
    if (options.migrate !== false) {
      const applied = await migrateToLatest(database.sessionDb);
      if (applied.length > 0) logger.info({ applied, database: database.dialect }, 'database migrated');
    }
    keyring = await openKeyring(database, masterKeys);
  } catch (error) {
    await database.close();
    throw error;
  }
  if (keyring.storeAt === 'previous') {
    logger.warn(
      'the store is at SINTONIA_MASTER_KEY_PREVIOUS: this process seals under it and opens what either key sealed; processes started after `sintonia master-key rotate` seal under SINTONIA_MASTER_KEY',
    );
  }
  if (database.dialect === 'postgres' && !master.configured) {
    logger.warn(
      { file: master.source },
      'the master key comes from a key file, which is for the single-process embedded store; set SINTONIA_MASTER_KEY in every process on PostgreSQL',
    );
  }
  const eventsLogger = logger.child({ component: 'events' });
  const events: OpenEventBus =
    database.dialect === 'postgres' && config.DATABASE_URL
      ? createPostgresEventBus({ url: config.DATABASE_URL, db: database.db, logger: eventsLogger })
      : createLocalEventBus(database.location, eventsLogger);
  const auditLog = createAuditRepository(database.db);
  const listening = new Map<ServiceName, string>();
  const metrics = createCoreMetrics(database);
  return {
    config,
    database,
    logger,
    apiKeys: withRequestLimits(createApiKeyStore(database.db), config, (keyClass) =>
      metrics.apiKeyRateLimited(keyClass),
    ),
    metrics,
    events,
    key: (purpose) => keyring.key(purpose),
    async audit(actor, action, subject) {
      await auditLog.append({ id: randomUUID(), at: Date.now(), actor, action, subject });
    },
    serviceUrl(name) {
      return listening.get(name) ?? `http://${config.HOST}:${servicePort(config, name)}`;
    },
    setServiceUrl(name, url) {
      listening.set(name, url);
    },
    lifecycle: { draining: false },
    async close() {
      await events.close();
      await database.close();
    },
  };
}
