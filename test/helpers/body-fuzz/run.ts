import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CodecName } from './codecs.ts';
import { MAX_BODY } from './mutate.ts';

/**
 * Runs the fuzzer's decodes in a worker thread under a watchdog: an infinite loop is synchronous, so only
 * another thread can notice it, name the body that caused it (from the shared buffer) and stop it.
 */

export interface FuzzJob {
  codec: CodecName;
  shared: SharedArrayBuffer;
  /** A fixed run: `runs` cases from `seed`. */
  seed?: number;
  runs?: number;
  /** A timed run: fresh seeds until this time (ms since the epoch). */
  deadline?: number;
  /** Bodies (hex) decoded under every schema before anything else: the regression cases. */
  replay?: string[];
}

export type FuzzMessage =
  | { kind: 'failure'; hex: string; reason: string; seed?: number }
  | { kind: 'progress'; runs: number }
  | { kind: 'done'; runs: number };

export interface FuzzFailure {
  body: Buffer;
  reason: string;
  seed?: number;
}

export interface FuzzOutcome {
  runs: number;
  failures: FuzzFailure[];
  /** The worker stopped answering (a decode that never ended); it was terminated. */
  hung: boolean;
}

/** A decode that has not returned after this long is a hang. */
export const HANG_MS = 10_000;
/** The worker's own start (loading the codecs through tsx) before its first decode. */
const STARTUP_MS = 60_000;

export const regressionRoot = new URL('../../fixtures/fuzz-regressions/', import.meta.url).pathname;

/** The regression cases of a codec, as hex: every file under fuzz-regressions/<codec>/. */
export function readRegressions(codec: CodecName): string[] {
  const dir = join(regressionRoot, codec);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.hex'))
    .sort()
    .map((file) => readFileSync(join(dir, file), 'utf8').trim());
}

/** Keeps a failing body as a regression case (named by its hash, so the same body is kept once). */
export function saveRegression(codec: CodecName, body: Buffer): string {
  const dir = join(regressionRoot, codec);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(body).digest('hex').slice(0, 16)}.hex`);
  writeFileSync(file, `${body.toString('hex')}\n`);
  return file;
}

export function fuzzInWorker(
  job: Omit<FuzzJob, 'shared'>,
  onProgress: (runs: number) => void = () => {},
  hangMs = HANG_MS,
): Promise<FuzzOutcome> {
  const shared = new SharedArrayBuffer(8 + MAX_BODY);
  const state = new Int32Array(shared, 0, 2);
  // A worker does not inherit tsx's loader: it registers it, then loads the TypeScript entry.
  const entry = JSON.stringify(new URL('./worker.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { ...job, shared } });
  const outcome: FuzzOutcome = { runs: 0, failures: [], hung: false };
  return new Promise((resolve, reject) => {
    let seen = 0;
    let since = Date.now();
    const finish = () => {
      clearInterval(watchdog);
      resolve(outcome);
    };
    const watchdog = setInterval(() => {
      const beats = Atomics.load(state, 0);
      if (beats !== seen) {
        seen = beats;
        since = Date.now();
        return;
      }
      if (Date.now() - since < (seen === 0 ? STARTUP_MS : hangMs)) return;
      const length = Math.min(Atomics.load(state, 1), MAX_BODY);
      const body = Buffer.from(new Uint8Array(shared, 8, length));
      outcome.failures.push({ body, reason: `no answer within ${hangMs / 1000} s (hang)` });
      outcome.hung = true;
      worker.removeAllListeners();
      void worker.terminate().then(finish, finish);
    }, 250);
    worker.on('message', (message: FuzzMessage) => {
      if (message.kind === 'failure') {
        const failure: FuzzFailure = { body: Buffer.from(message.hex, 'hex'), reason: message.reason };
        if (message.seed !== undefined) failure.seed = message.seed;
        outcome.failures.push(failure);
      } else {
        outcome.runs = message.runs;
        onProgress(message.runs);
      }
    });
    worker.on('error', (error) => {
      clearInterval(watchdog);
      reject(error);
    });
    worker.on('exit', finish);
  });
}
