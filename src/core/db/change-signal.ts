import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs';

/**
 * A value shared by every process that opens one SQLite store, which a writer changes after committing a
 * change that readers may have cached (for sessions: a close). A reader notes the value before it reads
 * the rows it caches, and trusts its cache only while the value is unchanged, so a change committed by
 * any process (a server, a second server, the admin CLI) is seen on the reader's next request.
 *
 * It lives in a small file beside the database (`<store>-<name>.signal`): one 6-byte `pread` per check,
 * where any SQLite statement (`PRAGMA data_version` included) takes the WAL read lock and costs as much
 * as the primary-key read it would save (docs/decisions-performance.md, "Session states remembered
 * behind a change signal"). Each change writes fresh random bytes rather than a counter, so two processes
 * changing it at once can never write the value a reader already holds. A torn read can only yield a
 * value nobody holds: a cache miss.
 */
export interface ChangeSignal {
  /** The current value (48 bits, as a number), read now. */
  current(): number;
  /**
   * The value read once for everyone who asks in this turn of the event loop, in its check phase
   * (setImmediate). By then the poll phase has received every request that asked, so the value is never
   * older than a request it serves, and under load one read serves many requests.
   */
  currentThisTurn(): Promise<number>;
  /** Gives the signal a new value; call after the commit of the change, before answering for it. */
  change(): void;
}

export interface OpenChangeSignal extends ChangeSignal {
  close(): void;
}

const SIZE = 6;

export function openChangeSignal(file: string): OpenChangeSignal {
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600);
  const buffer = Buffer.alloc(SIZE);
  let closed = false;
  let waiting: Array<{ resolve(value: number): void; reject(error: unknown): void }> = [];
  const answerThisTurn = () => {
    const batch = waiting;
    waiting = [];
    try {
      const value = signal.current();
      for (const waiter of batch) waiter.resolve(value);
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    }
  };
  const signal: OpenChangeSignal = {
    current() {
      if (readSync(fd, buffer, 0, SIZE, 0) < SIZE) return -1;
      return buffer.readUIntLE(0, SIZE);
    },
    currentThisTurn() {
      return new Promise((resolve, reject) => {
        if (waiting.push({ resolve, reject }) === 1) setImmediate(answerThisTurn);
      });
    },
    change() {
      writeSync(fd, randomBytes(SIZE), 0, SIZE, 0);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
  // A new file has no value yet: give it one, so "no value" never looks like a value a reader holds.
  if (signal.current() === -1) signal.change();
  return signal;
}
