/** `--scale N` (docs/benchmarks.md): the client-api alone at 1× and at N× the data set, both seeded here. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Shape, scaled } from './dataset.ts';
import { type HttpSettings, type PathResult, runHttpBench } from './http-bench.ts';
import { check, type FloorCheck, formatPaths } from './report.ts';
import type { BenchStore } from './store.ts';
import { sintoniaTarget } from './targets.ts';

export type ScaleRun = { factor: number; shape: Shape; seedSeconds: number; results: PathResult[] };

export async function runScaleBench(
  store: BenchStore,
  base: Shape,
  factor: number,
  dir: string,
  settings: HttpSettings,
) {
  const runs: ScaleRun[] = [];
  for (const times of [1, factor]) {
    const shape = scaled(base, times, Math.max(base.signedIn, 1000));
    const target = sintoniaTarget(store);
    const runDir = join(dir, `scale-${times}`);
    mkdirSync(runDir, { recursive: true });
    const started = Date.now();
    await target.seed(shape, runDir);
    const seedSeconds = Math.round((Date.now() - started) / 100) / 10;
    const only = settings.only ?? ['get bookmark json', 'post bookmark', 'get devices'];
    const label = `${settings.label} ${times}×`;
    const results = await runHttpBench([target], shape, runDir, { ...settings, only, label });
    runs.push({ factor: times, shape, seedSeconds, results });
  }
  return runs;
}

/** At N×, each path at least 0.8× the req/s of 1×, its p99 at most twice. */
export function scaleFloors([one, many]: ScaleRun[]): FloorCheck[] {
  return (one?.results ?? []).flatMap((small) => {
    const large = many?.results.find((result) => result.name === small.name);
    const at = `${small.name} at ${many?.factor}×`;
    return [
      check(`${at}: ≥ 0.8× the req/s of 1×`, large && large.requestsPerSecond / small.requestsPerSecond, 0.8),
      check(`${at}: p99 ≤ 2× that of 1×`, large && large.p99 / small.p99, 2, { atMost: true }),
    ];
  });
}

export const formatScale = (runs: ScaleRun[]) =>
  runs
    .map(({ factor, shape, seedSeconds, results }) => {
      const set = `${factor}×: ${shape.users} users, ${shape.users * shape.bookmarksPerUser} bookmarks, seeded in ${seedSeconds} s`;
      return `${set}\n${formatPaths(results)}`;
    })
    .join('\n\n');
