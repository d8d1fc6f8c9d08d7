import type { LoadResult } from './load.ts';
import type { Format, Operation } from './targets.ts';

export interface PathResult extends LoadResult {
  target: string;
  name: string;
  operation: Operation;
  format: Format;
  /** What the server answered to the probe request: the format actually measured. */
  contentType: string;
  /** The server process's CPU time (user + system) per request served, in µs. */
  serverCpuUsPerRequest: number | undefined;
  /** Requests/s over the bare path of the same operation in the same run. */
  ratioToBare?: number;
  /** For a non-JSON format: requests/s over the same route in JSON in the same run. */
  ratioToJson?: number;
  /** Requests/s of this path in every round, in round order; the other figures are the median round's. */
  roundsRequestsPerSecond?: number[];
  /** The ratios of every round, in round order; ratioToBare and ratioToJson are their medians. */
  roundsRatioToBare?: number[];
  roundsRatioToJson?: number[];
}

export interface CodecRow {
  [column: string]: string | number;
}

/**
 * Each path's median round (by requests/s; the lower middle for an even count), carrying every round's
 * requests/s and the failures of all rounds; its ratios are the medians of the ratios of each round
 * (run `addRatios` on every round first). Paths keep the order of the first round.
 */
function middle(values: number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

export function medianRounds(rounds: PathResult[][]): PathResult[] {
  const first = rounds[0] ?? [];
  return first.map((path) => {
    const same = rounds
      .map((round) => round.find((r) => r.target === path.target && r.name === path.name))
      .filter((r): r is PathResult => r !== undefined);
    const sorted = [...same].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? path;
    const sum = (field: 'non2xx' | 'errors' | 'timeouts') => same.reduce((total, r) => total + r[field], 0);
    const ratios = (field: 'ratioToBare' | 'ratioToJson') =>
      same.map((r) => r[field]).filter((ratio): ratio is number => ratio !== undefined);
    return {
      ...median,
      // Ratios are taken within each round (paths measured minutes apart), then their median.
      ratioToBare: middle(ratios('ratioToBare')),
      ratioToJson: middle(ratios('ratioToJson')),
      ...(ratios('ratioToBare').length > 0 ? { roundsRatioToBare: ratios('ratioToBare') } : {}),
      ...(ratios('ratioToJson').length > 0 ? { roundsRatioToJson: ratios('ratioToJson') } : {}),
      // A failure in any round shows, not only in the median one.
      non2xx: sum('non2xx'),
      errors: sum('errors'),
      timeouts: sum('timeouts'),
      roundsRequestsPerSecond: same.map((r) => Math.round(r.requestsPerSecond)),
    };
  });
}

export function addRatios(results: PathResult[]): void {
  const bare = new Map(results.filter((r) => r.target === 'bare').map((r) => [r.operation, r]));
  for (const result of results) {
    const base = bare.get(result.operation);
    if (base && base.requestsPerSecond > 0 && result.target !== 'bare')
      result.ratioToBare = result.requestsPerSecond / base.requestsPerSecond;
    if (result.format !== 'json') {
      const json = results.find(
        (r) => r.target === result.target && r.operation === result.operation && r.format === 'json',
      );
      if (json && json.requestsPerSecond > 0)
        result.ratioToJson = result.requestsPerSecond / json.requestsPerSecond;
    }
  }
}

const pad = (text: string, width: number, right = false) =>
  right ? text.padStart(width) : text.padEnd(width);
const ratio = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(2)}×`);

export function formatTable(results: PathResult[]): string {
  const header = [
    'path',
    'req/s',
    'p50 ms',
    'p99 ms',
    'vs bare',
    'vs JSON',
    'CPU µs/req',
    'non-2xx',
    'errors',
    'rounds req/s',
  ];
  const rows = results.map((r) => [
    `${r.target === 'bare' ? '' : 'sintonia '}${r.name}`,
    Math.round(r.requestsPerSecond).toString(),
    r.p50.toString(),
    r.p99.toString(),
    ratio(r.ratioToBare),
    ratio(r.ratioToJson),
    r.serverCpuUsPerRequest === undefined ? '' : r.serverCpuUsPerRequest.toString(),
    r.non2xx.toString(),
    (r.errors + r.timeouts).toString(),
    (r.roundsRequestsPerSecond ?? []).length > 1 ? (r.roundsRequestsPerSecond ?? []).join(' ') : '',
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) => pad(cell, widths[column] ?? 0, column > 0)).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function formatCodecTable(rows: CodecRow[]): string {
  if (rows.length === 0) return '';
  const header = Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => header.map((name) => String(row[name] ?? '')));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: string[]) =>
    row.map((cell, column) => pad(cell, widths[column] ?? 0, column > 0)).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line)].join('\n');
}
