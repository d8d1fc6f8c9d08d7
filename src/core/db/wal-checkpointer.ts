import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints the SQLite store's WAL from a worker thread with a connection of its own, so that the
 * serving connection never does: an automatic checkpoint runs inside whichever statement of the serving
 * connection completes after the WAL passed its threshold, and copying a few thousand pages back into the
 * database file (with the fsync of synchronous = NORMAL) held the event loop for many requests' time, and
 * every request in flight waited for it (docs/decisions-performance.md, "SQLite checkpoints off the event
 * loop"). PASSIVE checkpoints never block the writer; a process without one (the admin CLI) keeps SQLite's
 * own automatic checkpoint.
 */
export interface WalCheckpointer {
  stop(): Promise<void>;
}

/** How often the worker checkpoints: each copies what the WAL gained since the last one. */
const INTERVAL_MS = 250;
/** WAL pages (about 80 MiB) past which the worker makes the WAL start over. */
const RESTART_PAGES = 20_000;

// The worker's source: CommonJS, given the driver's resolved path (an eval'd worker resolves from nowhere).
const source = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 100');
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    // Under writes that never pause, the WAL is never found fully copied at a writer's start, so it never
    // starts over: past restartPages, a RESTART (nearly all copied already) holds writers back briefly.
    if (result && result.log > workerData.restartPages) db.pragma('wal_checkpoint(RESTART)');
  } catch {
    // Busy or closing: the next tick tries again.
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function startWalCheckpointer(file: string): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(source, {
    eval: true,
    workerData: { file, driver, intervalMs: INTERVAL_MS, restartPages: RESTART_PAGES },
  });
  worker.unref();
  // A checkpointer that fails leaves the store as it would be without one: the WAL grows until the
  // serving connection's backstop checkpoint (database.ts) takes over.
  worker.on('error', () => {});
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Held by the loop until it has closed its connection: the caller awaits a clean close.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
