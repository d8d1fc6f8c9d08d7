import { randomInt } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { checkBody } from './check.ts';
import { codecs, schemas } from './codecs.ts';
import { bodyOf, caseOf, type FuzzCase } from './mutate.ts';
import type { FuzzJob, FuzzMessage } from './run.ts';

/**
 * Runs in a worker thread: decodes broken bodies and tells the main thread what failed. Before each decode
 * the body goes into the shared buffer, so when a decode never returns the watchdog still has it.
 */

const job = workerData as FuzzJob;
const codec = codecs[job.codec];
const state = new Int32Array(job.shared, 0, 2);
const current = new Uint8Array(job.shared, 8);
const post = (message: FuzzMessage) => parentPort?.postMessage(message);

function check(body: Buffer, schema: number): string | undefined {
  current.set(body.subarray(0, current.length));
  Atomics.store(state, 1, body.length);
  Atomics.add(state, 0, 1);
  return checkBody(codec, body, schemas[schema] ?? {});
}

for (const hex of job.replay ?? []) {
  const body = Buffer.from(hex, 'hex');
  for (let schema = 0; schema < schemas.length; schema++) {
    const reason = check(body, schema);
    if (reason !== undefined) post({ kind: 'failure', hex, reason: `replayed: ${reason}` });
  }
}

const property = fc.property(caseOf(codec, schemas.length), (fuzzCase: FuzzCase) => {
  const reason = check(bodyOf(codec, fuzzCase), fuzzCase.schema);
  if (reason !== undefined) throw new Error(reason);
});

/** One fast-check run of `numRuns` cases from `seed`; a failure is reported shrunk. */
function batch(seed: number, numRuns: number): number {
  const result = fc.check(property, { seed, numRuns });
  const [example] = result.counterexample ?? [];
  if (result.failed && example !== undefined) {
    const reason = result.errorInstance instanceof Error ? result.errorInstance.message : 'failed';
    post({ kind: 'failure', hex: bodyOf(codec, example).toString('hex'), reason, seed });
  }
  return result.numRuns;
}

let runs = 0;
if (job.deadline === undefined) {
  runs = batch(job.seed ?? 1, job.runs ?? 100);
} else {
  // Fresh seeds until the deadline, in batches small enough to report progress as they go.
  while (Date.now() < job.deadline) {
    runs += batch(randomInt(2 ** 31), 500);
    post({ kind: 'progress', runs });
  }
}
post({ kind: 'done', runs });
