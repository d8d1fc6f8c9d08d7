/** The bench's figures: each path's median round and ratios, the tables printed, and the floors' verdicts. */
import type { PathResult } from './http-bench.ts';

/** The lower middle of `items` by `key` (the median for an odd count). */
export function median<T>(items: readonly T[], key: (item: T) => number): T | undefined {
  return [...items].sort((a, b) => key(a) - key(b))[Math.floor((items.length - 1) / 2)];
}

/** Each round's ratios: ours over bare of the same operation, and a format over JSON. */
export function addRatios(results: PathResult[]): void {
  for (const result of results) {
    const bare = results.find((r) => r.target === 'bare' && r.operation === result.operation);
    if (bare && bare.requestsPerSecond > 0 && result.target !== 'bare')
      result.ratioToBare = result.requestsPerSecond / bare.requestsPerSecond;
    const same = (r: PathResult) => r.target === result.target && r.operation === result.operation;
    const json = results.find((r) => same(r) && r.format === 'json');
    if (result.format !== 'json' && json && json.requestsPerSecond > 0)
      result.ratioToJson = result.requestsPerSecond / json.requestsPerSecond;
  }
}

/**
 * Each path's median round by requests/s, with the median of its rounds' ratios (each round measures bare
 * right before ours, so a ratio of one round is the fairest) and the failures of every round.
 */
export function medianRounds(rounds: PathResult[][]): PathResult[] {
  return (rounds[0] ?? []).map((first) => {
    const same = rounds.flat().filter((r) => r.target === first.target && r.name === first.name);
    const ratios = (key: 'ratioToBare' | 'ratioToJson') => same.flatMap((r) => r[key] ?? []);
    return {
      ...(median(same, (r) => r.requestsPerSecond) ?? first),
      ratioToBare: median(ratios('ratioToBare'), Number),
      ratioToJson: median(ratios('ratioToJson'), Number),
      non2xx: same.reduce((sum, r) => sum + r.non2xx, 0),
      errors: same.reduce((sum, r) => sum + r.errors, 0),
      rounds: same.map((r) => Math.round(r.requestsPerSecond)),
    };
  });
}

export const times = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(2)}×`);

/** Columns under a header and a rule; the first column left-aligned, the others right-aligned. */
export function formatColumns(header: string[], values: unknown[][]): string {
  const rows = values.map((row) => row.map(String));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const cell = (text: string, column: number) =>
    column === 0 ? text.padEnd(widths[0] ?? 0) : text.padStart(widths[column] ?? 0);
  const line = (cells: string[]) => cells.map(cell).join('  ').trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

const HEADER = 'path,req/s,p50 ms,p99 ms,vs bare,vs JSON,CPU µs/req,failed,rounds req/s'.split(',');

export function formatPaths(results: PathResult[]): string {
  const rows = results.map((r) => {
    const name = `${r.target === 'bare' ? '' : 'sintonia '}${r.name}`;
    const cells = [Math.round(r.requestsPerSecond), r.p50, r.p99, times(r.ratioToBare), times(r.ratioToJson)];
    const rounds = (r.rounds ?? []).length > 1 ? (r.rounds ?? []).join(' ') : '';
    return [name, ...cells, r.serverCpuUsPerRequest ?? '', r.non2xx + r.errors, rounds];
  });
  return formatColumns(HEADER, rows);
}

/** A floor and what this run measured of it: met, within 0.05 of it (counts as met), not met, or not measured. */
export type FloorCheck = { floor: string; measured: string; verdict: Verdict };
type Verdict = 'met' | 'within 0.05' | 'NOT MET' | '-';

/** `value ≥ limit` (`atMost`: ≤) as a verdict; a ratio within 0.05 of its floor counts as met. */
export function check(
  floor: string,
  value: number | undefined,
  limit: number,
  options: { shown?: string; atMost?: boolean; tolerance?: number } = {},
): FloorCheck {
  if (value === undefined || !Number.isFinite(value))
    return { floor, measured: 'not measured', verdict: '-' };
  const margin = options.atMost ? limit - value : value - limit;
  const verdict = margin >= 0 ? 'met' : margin >= -(options.tolerance ?? 0.05) ? 'within 0.05' : 'NOT MET';
  return { floor, measured: options.shown ?? times(value), verdict };
}

export function formatFloors(checks: FloorCheck[]): string {
  const width = Math.max(0, ...checks.map((c) => c.floor.length));
  return checks.map((c) => `${c.verdict.padEnd(11)}  ${c.floor.padEnd(width)}  ${c.measured}`).join('\n');
}
