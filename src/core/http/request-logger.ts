import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { type Bindings, type ChildLoggerOptions, type Level, type Logger, pino } from 'pino';

/**
 * `request.log`, made on first use. Fastify makes a pino child per request (bindings, serializers and
 * redaction set up again) although most requests never log through it: the one request line carries
 * the request id itself (service-app.ts). This stands in for the child, answers level questions from the
 * parent (or the route's `logLevel`) and makes the real child the first time something is logged.
 */
class LazyRequestLogger {
  #made: Logger | undefined;
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): Logger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return this.#made?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  isLevelEnabled(level: Level | string): boolean {
    if (this.#made !== undefined) return this.#made.isLevelEnabled(level);
    const own = this.#options.level;
    if (own === undefined) return this.#parent.isLevelEnabled(level);
    const values = this.#parent.levels.values;
    const wanted = values[level];
    const threshold = values[own];
    return wanted !== undefined && threshold !== undefined && wanted >= threshold;
  }

  bindings(): Bindings {
    return { ...this.#parent.bindings(), ...this.#bindings };
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#logger.child(bindings, options);
  }

  fatal(...args: Parameters<Logger['fatal']>): void {
    this.#logger.fatal(...args);
  }
  error(...args: Parameters<Logger['error']>): void {
    this.#logger.error(...args);
  }
  warn(...args: Parameters<Logger['warn']>): void {
    this.#logger.warn(...args);
  }
  info(...args: Parameters<Logger['info']>): void {
    this.#logger.info(...args);
  }
  debug(...args: Parameters<Logger['debug']>): void {
    this.#logger.debug(...args);
  }
  trace(...args: Parameters<Logger['trace']>): void {
    this.#logger.trace(...args);
  }
  silent(): void {}
}

/** Fastify's `childLoggerFactory`: see LazyRequestLogger. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}

/**
 * Request ids for requests that bring none: UUID-shaped, a random per-process prefix and a counter, so
 * they are unique across processes and restarts without drawing entropy per request (randomUUID refills
 * its pool through a getrandom call every 128 ids).
 */
export function requestIdSource(): () => string {
  const hex = randomBytes(10).toString('hex');
  const prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-`;
  let counter = 0;
  return () => {
    counter = counter === 0xffffffffffff ? 1 : counter + 1;
    return prefix + counter.toString(16).padStart(12, '0');
  };
}

/** A path segment holding an e-mail address: its `@` as sent or percent-encoded. */
const EMAIL_SEGMENT = /[^/]*(?:@|%40)[^/]*/g;

/**
 * The URL as the logs show it: an e-mail address in the path (`/users/{email}`) masked, and the names of
 * query parameters without their values (they may carry tokens or addresses).
 */
export function logUrl(url: string): string {
  const queryAt = url.indexOf('?');
  let path = queryAt === -1 ? url : url.slice(0, queryAt);
  // Checked first: almost no path holds an address, and most lines are written without a regular expression.
  if (path.includes('@') || path.includes('%40')) path = path.replace(EMAIL_SEGMENT, '…@…');
  if (queryAt === -1) return path;
  const query = url.slice(queryAt + 1);
  if (!query) return path;
  const names = [...new URLSearchParams(query).keys()];
  return `${path}?${names.map((name) => `${name}=…`).join('&')}`;
}

/** What the one line per request says (service-app.ts writes it at the request's end). */
export interface AccessFields {
  requestId: string;
  method: string;
  url: string;
  statusCode: number;
  responseTime: number;
}

export const ACCESS_MESSAGE = 'request completed';

/**
 * Writes the access line as pino would, `{"level":30,"time":…,<the logger's bindings>,"requestId":…,
 * "method":…,"url":…,"statusCode":…,"responseTime":…,"msg":"request completed"}`, straight to the logger's
 * stream: pino's generic path would walk the object and run its serialisers on every request, for fields
 * whose shape is known here. The request id and the method need no escaping (ids are checked against
 * `[A-Za-z0-9._:-]` or made by requestIdSource; a method is an HTTP token); the URL is escaped. A logger
 * with a mixin (tracing on: trace and span ids on every line) goes through pino itself.
 * `test/core/access-line.test.ts` holds the two writers to one output.
 */
export function accessLineWriter(logger: Logger): (fields: AccessFields) => void {
  const viaPino = (fields: AccessFields) => logger.info(fields, ACCESS_MESSAGE);
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write?: (line: string) => unknown } | undefined;
  const time = internals[pino.symbols.timeSym];
  const bindings = internals[pino.symbols.chindingsSym];
  if (
    internals[pino.symbols.mixinSym] ||
    typeof stream?.write !== 'function' ||
    typeof time !== 'function' ||
    typeof bindings !== 'string'
  ) {
    return viaPino;
  }
  const write = stream.write.bind(stream);
  const level = `{"level":${logger.levels.values.info}`;
  return (fields) => {
    write(
      `${level}${time()}${bindings},"requestId":"${fields.requestId}","method":"${fields.method}","url":${JSON.stringify(fields.url)},"statusCode":${fields.statusCode},"responseTime":${fields.responseTime},"msg":"${ACCESS_MESSAGE}"}\n`,
    );
  };
}
