import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { EventBus } from '../../core/events/event-bus.ts';
import { directLineErrors } from './errors.ts';
import type { DirectLineRepository } from './repository.ts';
import type { Activity } from './schemas.ts';

export interface StreamHub {
  /** Starts listening for activities other processes store, and the keep-alive. */
  start(): void;
  /** Refuses an upgrade when this process holds DIRECTLINE_STREAMS streams already (503, Retry-After). */
  checkRoom(): void;
  /** Takes a newly opened stream socket; a second socket for the same conversation is closed (collision). */
  attach(socket: WebSocket, conversationId: string, afterSeq: number): void;
  /** New activities are stored for this conversation: push them to its socket, here or in another process. */
  notify(conversationId: string): void;
  /** Pushes an activity that is never stored (typing) to the conversation's socket, here or in another process. */
  sendEphemeral(conversationId: string, activity: Activity): void;
  /** Stops listening and the keep-alive, and closes the sockets. */
  close(): void;
  /** Streams open in this process now. */
  readonly open: number;
}

interface Stream {
  socket: WebSocket;
  conversationId: string;
  /** Sequence number of the last activity sent on this socket. */
  sent: number;
  flushing: boolean;
  again: boolean;
  alive: boolean;
}

interface StreamHubOptions {
  /** Empty message and ping this often; a socket that missed the previous pong is dropped. */
  keepAliveMs: number;
  /** The store's events: how every process learns that a conversation has new activities. */
  events: EventBus;
  /** Streams this process holds at most (DIRECTLINE_STREAMS); `refused` counts an upgrade turned away. */
  maxStreams: number;
  refused: () => void;
}

/** Payload: a conversation id, whose new activities the process holding its stream reads and sends. */
const ACTIVITIES_TOPIC = 'directline.activities';
/** Payload: `{ conversationId, activity }`, an activity that is never stored (typing). */
const EPHEMERAL_TOPIC = 'directline.ephemeral';

const BATCH = 100;
/** After a failed read, a stream tries again this much later. */
const RETRY_MS = 1000;
const COLLISION_CLOSE_CODE = 4009;
/** A full process frees a stream as soon as any socket closes: a client may try again shortly. */
const FULL_RETRY_AFTER = '5';
/** Close code "try again later", for a socket that got past the check while the last room was taken. */
const FULL_CLOSE_CODE = 1013;

/**
 * The WebSocket streams of this process: at most one per conversation. A stream is sent what is stored
 * after its watermark (`sent`) whenever the store's events say its conversation has something new; after
 * the events reconnect (something may have been missed), every stream here reads from its watermark.
 */
export function createStreamHub(
  repository: DirectLineRepository,
  logger: Logger,
  options: StreamHubOptions,
): StreamHub {
  const streams = new Map<string, Stream>();

  async function flush(stream: Stream): Promise<void> {
    if (stream.flushing) {
      stream.again = true;
      return;
    }
    stream.flushing = true;
    try {
      do {
        stream.again = false;
        for (;;) {
          if (stream.socket.readyState !== stream.socket.OPEN) return;
          const batch = await repository.listAfter(stream.conversationId, stream.sent, BATCH);
          const last = batch.at(-1);
          if (!last || stream.socket.readyState !== stream.socket.OPEN) break;
          stream.sent = last.seq;
          const set = { activities: batch.map((item) => item.activity), watermark: String(last.seq) };
          stream.socket.send(JSON.stringify(set));
          if (batch.length < BATCH) break;
        }
      } while (stream.again);
    } catch (error) {
      logger.warn({ err: error, conversationId: stream.conversationId }, 'directline stream push failed');
      // No event may come again for this conversation: try once more from the watermark a little later.
      setTimeout(() => {
        if (streams.get(stream.conversationId) === stream) void flush(stream);
      }, RETRY_MS).unref();
    } finally {
      stream.flushing = false;
    }
  }

  let keepAlive: NodeJS.Timeout | undefined;
  let unsubscribe: Array<() => void> = [];

  const onEphemeral = (payload: string) => {
    let parsed: { conversationId?: unknown; activity?: unknown };
    try {
      parsed = JSON.parse(payload) as typeof parsed;
    } catch {
      return;
    }
    if (typeof parsed.conversationId !== 'string') return;
    const stream = streams.get(parsed.conversationId);
    if (stream && stream.socket.readyState === stream.socket.OPEN) {
      stream.socket.send(JSON.stringify({ activities: [parsed.activity] }));
    }
  };

  return {
    get open() {
      return streams.size;
    },
    start() {
      if (keepAlive) return;
      unsubscribe = [
        options.events.subscribe(
          ACTIVITIES_TOPIC,
          (conversationId) => {
            const stream = streams.get(conversationId);
            if (stream) void flush(stream);
          },
          {
            resync: () => {
              for (const stream of streams.values()) void flush(stream);
            },
          },
        ),
        options.events.subscribe(EPHEMERAL_TOPIC, onEphemeral),
      ];
      keepAlive = setInterval(() => {
        for (const stream of streams.values()) {
          if (!stream.alive) {
            stream.socket.terminate();
            continue;
          }
          stream.alive = false;
          stream.socket.ping();
          stream.socket.send('');
        }
      }, options.keepAliveMs);
      keepAlive.unref();
    },
    checkRoom() {
      if (streams.size < options.maxStreams) return;
      options.refused();
      throw directLineErrors.DIRECTLINE_STREAMS_FULL(undefined, {
        headers: { 'retry-after': FULL_RETRY_AFTER },
      });
    },
    attach(socket, conversationId, afterSeq) {
      if (streams.size >= options.maxStreams) {
        options.refused();
        socket.close(FULL_CLOSE_CODE, 'try again later');
        return;
      }
      if (streams.has(conversationId)) {
        socket.close(COLLISION_CLOSE_CODE, 'collision');
        return;
      }
      const stream: Stream = {
        socket,
        conversationId,
        sent: afterSeq,
        flushing: false,
        again: false,
        alive: true,
      };
      streams.set(conversationId, stream);
      socket.on('pong', () => {
        stream.alive = true;
      });
      // Clients send empty messages as their own keep-alive; nothing a client sends here is read.
      socket.on('message', () => {
        stream.alive = true;
      });
      socket.on('close', () => {
        if (streams.get(conversationId) === stream) streams.delete(conversationId);
      });
      void flush(stream);
    },
    notify(conversationId) {
      options.events.publish(ACTIVITIES_TOPIC, conversationId);
    },
    sendEphemeral(conversationId, activity) {
      options.events.publish(EPHEMERAL_TOPIC, JSON.stringify({ conversationId, activity }));
    },
    close() {
      clearInterval(keepAlive);
      keepAlive = undefined;
      for (const stop of unsubscribe) stop();
      unsubscribe = [];
      for (const stream of streams.values()) stream.socket.close(1001, 'going away');
      streams.clear();
    },
  };
}
