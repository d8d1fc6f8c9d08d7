import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { createSubscriptions, MAX_PAYLOAD_BYTES, type OpenEventBus } from './event-bus.ts';

/** The one NOTIFY channel of the family; topics travel inside the payload. */
export const EVENTS_CHANNEL = 'sintonia_events';
/** How the listening connection shows in pg_stat_activity.application_name (then the pid and origin id). */
export const LISTENER_APPLICATION_NAME = 'sintonia-events';

/** One NOTIFY payload stays under PostgreSQL's 8000-byte limit. */
const NOTIFY_BYTES = 7800;
/** How often the listening connection proves it is alive (by listening again), and how long it may take. */
const LIVENESS_MS = 30_000;
const LIVENESS_TIMEOUT_MS = 10_000;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;

export interface PostgresEventBusOptions<DB> {
  /** config.DATABASE_URL: the listening connection is a client of its own, outside the pool. */
  url: string;
  /** The store's pool: NOTIFY is one statement on it. */
  db: Kysely<DB>;
  logger: Logger;
  /** Liveness check period, for tests. */
  livenessMs?: number;
}

/** What one NOTIFY carries: the origin process and its events, each `[topic, payload]`. */
interface Message {
  o: string;
  e: Array<[string, string]>;
}

/** Sends the messages, one NOTIFY each, in one statement on the pool. The bus's only SQL. */
async function notify<DB>(db: Kysely<DB>, messages: string[]): Promise<void> {
  await sql`select pg_notify(${EVENTS_CHANNEL}, message) from unnest(${messages}::text[]) as message`.execute(
    db,
  );
}

/** Packs the events of one turn, in order, into as few NOTIFY payloads as fit. */
function pack(origin: string, events: Array<[string, string]>): string[] {
  const messages: string[] = [];
  const base = Buffer.byteLength(JSON.stringify({ o: origin, e: [] } satisfies Message));
  let batch: string[] = [];
  let size = base;
  const seal = () => messages.push(`{"o":${JSON.stringify(origin)},"e":[${batch.join(',')}]}`);
  for (const event of events) {
    const text = JSON.stringify(event);
    const bytes = Buffer.byteLength(text) + 1;
    if (batch.length > 0 && size + bytes > NOTIFY_BYTES) {
      seal();
      batch = [];
      size = base;
    }
    batch.push(text);
    size += bytes;
  }
  if (batch.length > 0) seal();
  return messages;
}

function parse(text: string): Message | undefined {
  try {
    const value = JSON.parse(text) as Partial<Message>;
    if (typeof value.o !== 'string' || !Array.isArray(value.e)) return undefined;
    return value as Message;
  } catch {
    return undefined;
  }
}

/**
 * The bus of a PostgreSQL store (DESIGN §7): events are delivered in this process at once and sent to the
 * others by NOTIFY, the events of one turn of the event loop in one statement. The process listens on one
 * connection of its own, opened when the first subscriber comes (admin commands never open it); when
 * that connection drops it reconnects with backoff, then tells every subscriber to resync from the
 * database. A process skips its own events coming back: it delivered them already.
 */
export function createPostgresEventBus<DB>(options: PostgresEventBusOptions<DB>): OpenEventBus {
  const { logger } = options;
  const origin = randomBytes(6).toString('hex');
  const subscriptions = createSubscriptions(logger);
  let outbox: Array<[string, string]> = [];
  let sending: Promise<void> = Promise.resolve();
  let scheduled = false;
  let closed = false;

  const sendOutbox = () => {
    scheduled = false;
    const events = outbox;
    outbox = [];
    if (events.length === 0) return;
    const messages = pack(origin, events);
    sending = sending
      .then(() => notify(options.db, messages))
      .catch((error: unknown) => {
        logger.warn({ err: error, events: events.length }, 'events: could not tell the other processes');
      });
  };

  let client: pg.Client | undefined;
  let listening = false;
  let everListened = false;
  let attempt = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let livenessTimer: NodeJS.Timeout | undefined;

  const onNotification = (message: pg.Notification) => {
    if (message.channel !== EVENTS_CHANNEL || message.payload === undefined) return;
    const parsed = parse(message.payload);
    if (!parsed) {
      logger.warn({ channel: message.channel }, 'events: ignored a message that is not ours');
      return;
    }
    if (parsed.o === origin) return;
    for (const event of parsed.e) {
      if (Array.isArray(event) && typeof event[0] === 'string' && typeof event[1] === 'string')
        subscriptions.dispatch(event[0], event[1]);
    }
  };

  const dropped = (which: pg.Client, error?: unknown) => {
    if (which !== client) return;
    client = undefined;
    const wasListening = listening;
    listening = false;
    clearInterval(livenessTimer);
    which.removeAllListeners('notification');
    which.on('error', () => {});
    void which.end().catch(() => {});
    if (closed) return;
    if (wasListening) logger.warn({ err: error }, 'events: the listening connection dropped; reconnecting');
    scheduleConnect();
  };

  const scheduleConnect = () => {
    if (closed || reconnectTimer || client) return;
    const delay = attempt === 0 ? 0 : Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** (attempt - 1));
    attempt += 1;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connect();
    }, delay);
    reconnectTimer.unref();
  };

  const connect = async () => {
    if (closed || client) return;
    const next = new pg.Client({
      connectionString: options.url,
      application_name: `${LISTENER_APPLICATION_NAME} pid=${process.pid} ${origin}`,
      keepAlive: true,
      connectionTimeoutMillis: LIVENESS_TIMEOUT_MS,
      query_timeout: LIVENESS_TIMEOUT_MS,
    });
    client = next;
    next.on('error', (error) => dropped(next, error));
    next.on('end', () => dropped(next));
    next.on('notification', onNotification);
    try {
      await next.connect();
      await next.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      if (client === next) {
        if (attempt === 1 || attempt % 10 === 0)
          logger.warn({ err: error, attempt }, 'events: could not listen; retrying');
        dropped(next, error);
      }
      return;
    }
    if (client !== next || closed) return;
    listening = true;
    if (everListened || attempt > 1) logger.info({ attempts: attempt }, 'events: listening again');
    everListened = true;
    attempt = 0;
    livenessTimer = setInterval(() => {
      next.query(`LISTEN ${EVENTS_CHANNEL}`).catch((error: unknown) => dropped(next, error));
    }, options.livenessMs ?? LIVENESS_MS);
    livenessTimer.unref();
    // Whatever was published while nobody listened is in the database: every subscriber catches up.
    subscriptions.resyncAll();
  };

  return {
    publish(topic, payload) {
      subscriptions.dispatch(topic, payload);
      if (closed) return;
      if (Buffer.byteLength(payload) + Buffer.byteLength(topic) > MAX_PAYLOAD_BYTES) {
        logger.warn({ topic }, 'events: payload too large for the other processes; delivered here only');
        return;
      }
      outbox.push([topic, payload]);
      if (!scheduled) {
        scheduled = true;
        setImmediate(sendOutbox);
      }
    },
    subscribe(topic, handler, subscribeOptions = {}) {
      const remove = subscriptions.add({ topic, handler, resync: subscribeOptions.resync });
      if (!closed && !client && !reconnectTimer) scheduleConnect();
      else if (listening && subscribeOptions.resync) {
        const { resync } = subscribeOptions;
        queueMicrotask(() => {
          try {
            resync();
          } catch (error) {
            logger.warn({ err: error, topic }, 'an event subscriber failed');
          }
        });
      }
      return remove;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(reconnectTimer);
      clearInterval(livenessTimer);
      subscriptions.clear();
      sendOutbox();
      await sending;
      const last = client;
      client = undefined;
      listening = false;
      if (last) {
        last.removeAllListeners('notification');
        last.on('error', () => {});
        // A client whose server is gone may never confirm the end: wait a little, not forever.
        await Promise.race([
          last.end().catch(() => {}),
          new Promise((resolve) => setTimeout(resolve, 1000).unref()),
        ]);
      }
    },
  };
}
