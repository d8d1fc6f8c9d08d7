import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codecNames } from '../../helpers/body-fuzz/codecs.ts';
import { fuzzInWorker, readRegressions } from '../../helpers/body-fuzz/run.ts';

/**
 * The suite's share of the body fuzzer (docs/testing.md): for each codec, every kept regression body
 * under every schema, then a fixed seed's broken bodies, decoded in a worker thread under a watchdog so a
 * decode that never ends fails the test instead of freezing the runner. `npm run fuzz` runs it longer.
 */

/** Bodies per codec: about a second of decoding each, with the worker's start. */
const RUNS = 400;
const SEED = 20261128;

describe('body fuzzer: broken bodies of every codec are answered, in bounded time', () => {
  for (const codec of codecNames) {
    it(`${codec}: a value or a 400/413 refusal for each regression body and ${RUNS} broken ones`, async () => {
      const replay = readRegressions(codec);
      const outcome = await fuzzInWorker({ codec, seed: SEED, runs: RUNS, replay });
      const report = outcome.failures
        .map((failure) => `${failure.reason}: ${failure.body.toString('hex').slice(0, 200)}`)
        .join('\n');
      assert.equal(outcome.failures.length, 0, report);
      assert.equal(outcome.runs, RUNS);
    });
  }
});
