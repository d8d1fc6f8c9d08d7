import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { DirectLineRepository } from './repository.ts';
import type { Activity } from './schemas.ts';

export interface StreamHub {
  /** Starts polling for activities other processes stored, and the keep-alive. */
  start(): void;
  /** Takes a newly opened stream socket; a second socket for the same conversation is closed (collision). */
  attach(socket: WebSocket, conversationId: string, afterSeq: number): void;
  /** New activities are stored for this conversation: push them to its socket, if it is here. */
  notify(conversationId: string): void;
  /** Pushes an activity that is never stored (typing) to the conversation's socket, if it is here. */
  sendEphemeral(conversationId: string, activity: Activity): void;
  /** Stops the timers and closes the sockets. */
  close(): void;
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

export interface StreamHubOptions {
  /** Empty message and ping this often; a socket that missed the previous pong is dropped. */
  keepAliveMs: number;
  /** Looks in the database this often for activities another process stored. */
  pollMs: number;
}

const BATCH = 100;
export const COLLISION_CLOSE_CODE = 4009;

/** The WebSocket streams of this process: at most one per conversation. */
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
    } finally {
      stream.flushing = false;
    }
  }

  let timers: NodeJS.Timeout[] = [];

  return {
    start() {
      if (timers.length > 0) return;
      const poller = setInterval(() => {
        for (const stream of streams.values()) void flush(stream);
      }, options.pollMs);
      const keepAlive = setInterval(() => {
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
      timers = [poller, keepAlive];
      for (const timer of timers) timer.unref();
    },
    attach(socket, conversationId, afterSeq) {
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
      const stream = streams.get(conversationId);
      if (stream) void flush(stream);
    },
    sendEphemeral(conversationId, activity) {
      const stream = streams.get(conversationId);
      if (stream && stream.socket.readyState === stream.socket.OPEN) {
        stream.socket.send(JSON.stringify({ activities: [activity] }));
      }
    },
    close() {
      for (const timer of timers) clearInterval(timer);
      timers = [];
      for (const stream of streams.values()) stream.socket.close(1001, 'going away');
      streams.clear();
    },
  };
}
