import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { EventBus } from '../../core/events/event-bus.ts';
import { commandErrors } from './errors.ts';
import type { CommandRepository, DeviceKey } from './repository.ts';
import type { CommandRow } from './tables.ts';

/** Payload: `<accountNumber>\n<deviceId>`, a device with a new command, which the holder of its stream reads. */
export const COMMANDS_TOPIC = 'client-api.commands';
/** A stream record not refreshed for this many keep-alive intervals counts as gone (a dead process). */
export const STALE_INTERVALS = 3;
/** A full process frees a stream as soon as any closes: a client may try again shortly. */
const FULL_RETRY_AFTER = '5';
/** A gone process's stream records are removed this long after it was last seen (by any process's hub). */
const FORGET_AFTER_MS = 86_400_000;
/** How often a hub removes them: at its start, then about hourly. */
const FORGET_EVERY_MS = 3_600_000;
/** Sessions of held streams checked per statement, once per keep-alive interval. */
const SESSION_BATCH = 500;
/** After a failed read, a stream tries again this much later. */
const RETRY_MS = 1000;

export const streamHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx passes the events on as they come, whatever its proxy_buffering.
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
} as const;

interface Stream {
  raw: ServerResponse;
  device: DeviceKey;
  /** The device session it was opened in: a stream ends once that session is closed (sign-out). */
  sessionId: string;
  flushing: boolean;
  again: boolean;
}

export interface CommandStreamHub {
  /** Starts listening for commands other processes store, and the shared keep-alive. */
  start(): void;
  /** 503 COMMAND_STREAMS_FULL with Retry-After when the process holds COMMAND_STREAMS streams already, or is stopping. */
  checkRoom(device: DeviceKey): void;
  /**
   * Takes a device's newly opened response: writes the event-stream headers, records the stream in the
   * store, sends what is due (the commands after `lastEventId` not expired nor acknowledged, then those never
   * sent). A second stream of the same device in this process replaces the first.
   */
  open(
    raw: ServerResponse,
    stream: { device: DeviceKey; sessionId: string; lastEventId?: string },
  ): Promise<void>;
  /** A command is stored for `device`: the process holding its stream, this one or another, sends it. */
  notify(device: DeviceKey): void;
  /** Whether a live process (this one or another) holds the device's stream. */
  connected(device: DeviceKey): Promise<boolean>;
  /** Ends every stream and the keep-alive; the store forgets this process's streams. */
  close(): Promise<void>;
  /** Streams open in this process now. */
  readonly size: number;
}

export interface CommandStreamOptions {
  events: EventBus;
  /** COMMAND_STREAMS. */
  maxStreams: number;
  /** COMMAND_STREAM_KEEPALIVE, in seconds. */
  keepAliveSeconds: number;
  logger: Logger;
  refused: () => void;
  now?: () => number;
}

const keyOf = (device: DeviceKey) => `${device.accountNumber}\n${device.deviceId}`;

/** One command as an event of the stream: `id`, `event: command`, and its JSON on one `data` line. */
export function commandEvent(row: CommandRow): string {
  const data: Record<string, unknown> = { id: row.id, type: row.type };
  if (row.content_id !== null) data.contentId = Number(row.content_id);
  if (row.offset_seconds !== null) data.offset = row.offset_seconds;
  data.sentAt = new Date(Number(row.created_at)).toISOString();
  data.expiresAt = new Date(Number(row.expires_at)).toISOString();
  return `id: ${row.id}\nevent: command\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The command streams of this process (Server-Sent Events), at most one per device. An idle stream is
 * its response and a small record: one interval for the whole process writes every keep-alive and
 * refreshes, in one update, the store's record of the streams held here.
 */
export function createCommandStreamHub(
  repository: CommandRepository,
  options: CommandStreamOptions,
): CommandStreamHub {
  const { events, logger } = options;
  const now = options.now ?? Date.now;
  const holder = randomBytes(9).toString('base64url');
  const streams = new Map<string, Stream>();
  let keepAlive: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  /** Once closed (the service stops), a stream asked on a connection still open is refused, never held. */
  let closed = false;

  const live = (stream: Stream) => streams.get(keyOf(stream.device)) === stream && !stream.raw.destroyed;

  async function flush(stream: Stream, lastEventId?: string): Promise<void> {
    if (stream.flushing) {
      stream.again = true;
      return;
    }
    stream.flushing = true;
    try {
      do {
        stream.again = false;
        const time = now();
        const resumed = lastEventId ? await repository.after(stream.device, lastEventId, time) : [];
        lastEventId = undefined;
        if (!live(stream)) return;
        const claimed = await repository.claimUndelivered(stream.device, time);
        const sent = new Set(resumed.map((row) => row.id));
        const rows = [...resumed, ...claimed.filter((row) => !sent.has(row.id))];
        if (rows.length > 0 && live(stream)) stream.raw.write(rows.map(commandEvent).join(''));
      } while (stream.again);
    } catch (error) {
      logger.warn({ err: error }, 'command stream push failed');
      setTimeout(() => {
        if (live(stream)) void flush(stream);
      }, RETRY_MS).unref();
    } finally {
      stream.flushing = false;
    }
  }

  /**
   * Devices whose stream ended here but whose record could not be deleted (the store failed): the refresh
   * below would keep such a record fresh, and the device read as connected, for as long as this process
   * runs; so the delete is tried again at each keep-alive until it is done or the device holds a stream
   * here again. At most one entry a device.
   */
  const unreleased = new Map<string, DeviceKey>();

  /** Deletes this process's record of a device's stream; a failure is logged and retried, never thrown. */
  function release(device: DeviceKey): Promise<void> {
    const key = keyOf(device);
    return repository.releaseStream(device, holder).then(
      async () => {
        unreleased.delete(key);
        // Held here again while the delete was on its way: its record is put back.
        if (streams.has(key)) await repository.holdStream(device, holder, now()).catch(() => undefined);
      },
      (error: unknown) => {
        if (!streams.has(key)) unreleased.set(key, device);
        logger.warn({ err: error }, 'releasing a command stream record failed');
      },
    );
  }

  /** Each pending delete once more; taken out while on its way, so a hanging store gets no pile of them. */
  function releaseAgain(): void {
    const pending = [...unreleased];
    unreleased.clear();
    for (const [key, device] of pending) if (!streams.has(key)) void release(device);
  }

  /**
   * Ends the streams whose session was closed since they opened (a sign-out, a disabled device). Each is
   * forgotten, in this process and in the store, before its response ends: once the device sees its stream
   * end, no process reads it as connected.
   */
  async function endSignedOut(): Promise<void> {
    const held = [...streams.values()];
    for (let start = 0; start < held.length; start += SESSION_BATCH) {
      const batch = held.slice(start, start + SESSION_BATCH);
      const closed = await repository.closedSessions(batch.map((stream) => stream.sessionId));
      const ended = batch.filter((stream) => closed.has(stream.sessionId) && live(stream));
      for (const stream of ended) streams.delete(keyOf(stream.device));
      await Promise.all(ended.map((stream) => release(stream.device)));
      for (const stream of ended) stream.raw.end();
    }
  }

  let forgotten = 0;
  function forgetStale(): void {
    const time = now();
    if (time - forgotten < FORGET_EVERY_MS) return;
    forgotten = time;
    repository.forgetStale(time - FORGET_AFTER_MS).catch((error: unknown) => {
      logger.warn({ err: error }, 'removing the stream records of gone processes failed');
    });
  }

  function tick(): void {
    forgetStale();
    releaseAgain();
    for (const stream of streams.values()) stream.raw.write(': keep-alive\n\n');
    if (streams.size === 0) return;
    repository.refreshStreams(holder, now()).catch((error: unknown) => {
      logger.warn({ err: error }, 'refreshing the command streams record failed');
    });
    endSignedOut().catch((error: unknown) => {
      logger.warn({ err: error }, 'checking the command streams sessions failed');
    });
  }

  return {
    get size() {
      return streams.size;
    },
    start() {
      if (keepAlive) return;
      unsubscribe = events.subscribe(
        COMMANDS_TOPIC,
        (payload) => {
          const stream = streams.get(payload);
          if (stream) void flush(stream);
        },
        {
          resync: () => {
            for (const stream of streams.values()) void flush(stream);
          },
        },
      );
      keepAlive = setInterval(tick, options.keepAliveSeconds * 1000);
      keepAlive.unref();
      forgetStale();
    },
    checkRoom(device) {
      if (!closed && (streams.size < options.maxStreams || streams.has(keyOf(device)))) return;
      options.refused();
      throw commandErrors.COMMAND_STREAMS_FULL(undefined, { headers: { 'retry-after': FULL_RETRY_AFTER } });
    },
    async open(raw, { device, sessionId, lastEventId }) {
      if (closed) {
        raw.destroy();
        return;
      }
      const key = keyOf(device);
      const stream: Stream = { raw, device, sessionId, flushing: false, again: false };
      const previous = streams.get(key);
      streams.set(key, stream);
      unreleased.delete(key);
      previous?.raw.end();
      raw.writeHead(200, streamHeaders);
      // The first bytes at once: a client (and a proxy) sees the stream open before any command.
      raw.write(': connected\n\n');
      raw.on('close', () => {
        if (streams.get(key) !== stream) return;
        streams.delete(key);
        void release(device);
      });
      raw.on('error', () => raw.destroy());
      await repository.holdStream(device, holder, now());
      await flush(stream, lastEventId);
    },
    notify(device) {
      events.publish(COMMANDS_TOPIC, keyOf(device));
    },
    async connected(device) {
      if (streams.has(keyOf(device))) return true;
      const since = now() - STALE_INTERVALS * options.keepAliveSeconds * 1000;
      return repository.connected(device, since);
    },
    async close() {
      closed = true;
      clearInterval(keepAlive);
      keepAlive = undefined;
      unsubscribe?.();
      unsubscribe = undefined;
      const held = [...streams.values()];
      streams.clear();
      for (const stream of held) stream.raw.end();
      if (held.length > 0 || unreleased.size > 0) await repository.releaseAll(holder).catch(() => undefined);
      unreleased.clear();
    },
  };
}
