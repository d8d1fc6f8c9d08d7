// The long run of the body fuzzer (docs/testing.md): `npm run fuzz -- --minutes N [--codec NAME]` breaks
// valid bodies of each codec with fresh random seeds for N minutes per codec, one codec after the other
// (one worker thread: the machine is shared). Every failing body is kept under
// test/fixtures/fuzz-regressions/<codec>/, which the suite replays; the exit code is 1 if any failed.
import { parseArgs } from 'node:util';
import { type CodecName, codecNames, isCodecName } from '../test/helpers/body-fuzz/codecs.ts';
import { fuzzInWorker, readRegressions, saveRegression } from '../test/helpers/body-fuzz/run.ts';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '1' }, codec: { type: 'string', multiple: true } },
});
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`--minutes must be a positive number`);
const chosen = values.codec ?? [...codecNames];
const unknown = chosen.filter((name) => !isCodecName(name));
if (unknown.length > 0)
  throw new Error(`unknown codec ${unknown.join(', ')}; known: ${codecNames.join(', ')}`);

interface Summary {
  codec: CodecName;
  runs: number;
  failures: number;
  hangs: number;
  seconds: number;
}

async function fuzzCodec(codec: CodecName): Promise<Summary> {
  const started = Date.now();
  const deadline = started + minutes * 60_000;
  const summary: Summary = { codec, runs: 0, failures: 0, hangs: 0, seconds: 0 };
  let replay: string[] | undefined = readRegressions(codec);
  // A hang stops its worker: the run goes on in a new one, with new seeds, until the deadline.
  while (Date.now() < deadline) {
    const before = summary.runs;
    const outcome = await fuzzInWorker({ codec, deadline, ...(replay ? { replay } : {}) }, (runs) => {
      summary.runs = before + runs;
    });
    replay = undefined;
    summary.runs = before + outcome.runs;
    if (outcome.hung) summary.hangs++;
    for (const failure of outcome.failures) {
      summary.failures++;
      const file = saveRegression(codec, failure.body);
      const seed = failure.seed === undefined ? '' : ` (seed ${failure.seed})`;
      console.log(`${codec}: FAILED${seed}: ${failure.reason}\n  kept as ${file}`);
    }
  }
  summary.seconds = Math.round((Date.now() - started) / 1000);
  console.log(`${codec}: ${summary.runs} bodies in ${summary.seconds} s, ${summary.failures} failures`);
  return summary;
}

const summaries: Summary[] = [];
for (const codec of chosen) {
  if (isCodecName(codec)) summaries.push(await fuzzCodec(codec));
}
console.log('\ncodec   bodies      seconds  failures  hangs');
for (const { codec, runs, seconds, failures, hangs } of summaries) {
  console.log(
    `${codec.padEnd(7)} ${String(runs).padStart(9)} ${String(seconds).padStart(9)} ${String(failures).padStart(9)} ${String(hangs).padStart(6)}`,
  );
}
process.exitCode = summaries.some((summary) => summary.failures > 0) ? 1 : 0;
