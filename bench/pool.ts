/**
 * `node --import tsx bench/pool.ts RUN.json… [-- RUN.json…]`: the rounds of several bench runs pooled per
 * path, each path's median ratio to bare over every round with a 90% bootstrap interval. With `--`, the
 * runs after it are a second build (before/after), and the difference of the two medians gets its
 * interval too. On a noisy machine one run's median says little (a read's round ran 0.54–1.35× within one
 * build): alternate runs of the two builds and pool them here.
 */
import { readFileSync } from 'node:fs';
import { seededRandom } from './dataset.ts';
import type { PathResult } from './report.ts';

interface BenchJson {
  stores: Array<{ database: string; http?: { results: PathResult[] } }>;
}

/** Every round's ratio to bare, by store and path, over the runs given. */
export function pooledRatios(runs: BenchJson[]): Map<string, number[]> {
  const pooled = new Map<string, number[]>();
  for (const run of runs)
    for (const store of run.stores)
      for (const result of store.http?.results ?? []) {
        if (!result.roundsRatioToBare) continue;
        const key = `${store.database}: ${result.name}`;
        const rounds = pooled.get(key) ?? [];
        rounds.push(...result.roundsRatioToBare);
        pooled.set(key, rounds);
      }
  return pooled;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * The 5th and 95th percentiles of `statistic` over `draws` resamplings (rounds drawn with replacement) of
 * each sample: a 90% interval that assumes nothing of the rounds' distribution.
 */
export function bootstrap(
  samples: ReadonlyArray<readonly number[]>,
  statistic: (...resampled: number[][]) => number,
  draws = 5000,
): [number, number] {
  // Seeded: the same runs always print the same intervals.
  const next = seededRandom(28);
  const resample = (sample: readonly number[]) =>
    sample.map(() => sample[Math.floor(next() * sample.length)] ?? 0);
  const values = Array.from({ length: draws }, () => statistic(...samples.map(resample)));
  values.sort((a, b) => a - b);
  return [values[Math.floor(draws * 0.05)] ?? Number.NaN, values[Math.floor(draws * 0.95)] ?? Number.NaN];
}

const interval = ([low, high]: [number, number]) => `90% ${low.toFixed(3)}–${high.toFixed(3)}`;

/** `0.847× (n 55, 90% 0.802–0.885)`: a sample's median ratio and its interval. */
const described = (sample: readonly number[]) =>
  `${median(sample).toFixed(3)}× (n ${sample.length}, ${interval(bootstrap([sample], median))})`;

function report(first: Map<string, number[]>, second: Map<string, number[]> | undefined): string[] {
  return [...first].map(([path, before]) => {
    const after = second?.get(path);
    if (!after) return `${path}: ${described(before)}`;
    const change = median(after) - median(before);
    const difference = bootstrap([before, after], (a, b) => median(b) - median(a));
    return `${path}: ${described(before)} → ${described(after)}; difference ${change.toFixed(3)} (${interval(difference)})`;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const split = args.indexOf('--');
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n`);
    process.exit(2);
  };
  const read = (file: string) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as BenchJson;
    } catch (error) {
      return fail(`bench/pool.ts: ${file} is not a bench run's JSON (${(error as Error).message})`);
    }
  };
  const load = (files: string[]) => pooledRatios(files.map(read));
  const firstFiles = split === -1 ? args : args.slice(0, split);
  if (firstFiles.length === 0) fail('usage: node --import tsx bench/pool.ts RUN.json… [-- RUN.json…]');
  const second = split === -1 ? undefined : load(args.slice(split + 1));
  process.stdout.write(`${report(load(firstFiles), second).join('\n')}\n`);
}
