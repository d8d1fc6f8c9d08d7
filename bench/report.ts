import type { ChannelResult } from './channel.ts';
import { type Comparison, type GoalCheck, ratioOf } from './goals.ts';
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
  /** PostgreSQL's CPU per request (its whole process tree; the target under load is alone on it). */
  databaseCpuUsPerRequest?: number;
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

/** The lower middle of `items` by `key` (the median for an odd count). */
function lowerMiddle<T>(items: readonly T[], key: (item: T) => number): T | undefined {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Each path's median round (by requests/s), carrying every round's requests/s and the failures of all
 * rounds; its ratios are the medians of the ratios of each round (run `addRatios` on every round first:
 * paths of one round are measured minutes apart, of different rounds further). Paths keep the order of
 * the first round.
 */
export function medianRounds(rounds: PathResult[][]): PathResult[] {
  const first = rounds[0] ?? [];
  return first.map((path) => {
    const same = rounds
      .map((round) => round.find((r) => r.target === path.target && r.name === path.name))
      .filter((r): r is PathResult => r !== undefined);
    const median = lowerMiddle(same, (r) => r.requestsPerSecond) ?? path;
    const sum = (field: 'non2xx' | 'errors' | 'timeouts') => same.reduce((total, r) => total + r[field], 0);
    const toBare = same.flatMap((r) => (r.ratioToBare === undefined ? [] : [r.ratioToBare]));
    const toJson = same.flatMap((r) => (r.ratioToJson === undefined ? [] : [r.ratioToJson]));
    return {
      ...median,
      ratioToBare: lowerMiddle(toBare, (ratio) => ratio),
      ratioToJson: lowerMiddle(toJson, (ratio) => ratio),
      ...(toBare.length > 0 ? { roundsRatioToBare: toBare } : {}),
      ...(toJson.length > 0 ? { roundsRatioToJson: toJson } : {}),
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

/** Columns under a header and a rule; the first column left-aligned, the others right-aligned. */
export function formatColumns(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => pad(cell, widths[column] ?? 0, column > 0))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function formatTable(results: PathResult[]): string {
  const header = [
    'path',
    'req/s',
    'p50 ms',
    'p99 ms',
    'vs bare',
    'vs JSON',
    'CPU µs/req',
    'DB µs/req',
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
    r.databaseCpuUsPerRequest === undefined ? '' : r.databaseCpuUsPerRequest.toString(),
    r.non2xx.toString(),
    (r.errors + r.timeouts).toString(),
    (r.roundsRequestsPerSecond ?? []).length > 1 ? (r.roundsRequestsPerSecond ?? []).join(' ') : '',
  ]);
  return formatColumns(header, rows);
}

/** Each path of ours beside the bare path of the same operation: req/s, the ratio (ratioOf: the median round's), and both p99s. */
export function formatComparison(pairs: Comparison[]): string {
  const header = ['path', 'ours req/s', 'bare req/s', 'ratio', 'ours p99 ms', 'bare p99 ms'];
  const rows = pairs.map(({ path, ours, bare }) => [
    `${path} vs ${bare.name}`,
    Math.round(ours.requestsPerSecond).toString(),
    Math.round(bare.requestsPerSecond).toString(),
    ratio(ratioOf({ path, ours, bare })),
    ours.p99.toString(),
    bare.p99.toString(),
  ]);
  return formatColumns(header, rows);
}

export function formatGoals(checks: GoalCheck[]): string {
  const verdict = (met: boolean | undefined) => (met === undefined ? '   -   ' : met ? '  met  ' : 'NOT MET');
  const width = Math.max(...checks.map((check) => check.goal.length));
  return checks
    .map((check) => `${verdict(check.met)}  ${check.goal.padEnd(width)}  ${check.measured}`)
    .join('\n');
}

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
const percent = (share: number | undefined) => (share === undefined ? '' : `${(share * 100).toFixed(1)}%`);

export function formatChannel(channel: ChannelResult): string {
  const { latencyMs: latency, idle } = channel;
  const others = [
    idle.otherProcessCpuShare === undefined ? '' : `, other process ${percent(idle.otherProcessCpuShare)}`,
    idle.databaseCpuShare === undefined ? '' : `, database ${percent(idle.databaseCpuShare)}`,
  ].join('');
  return [
    `answer latency (${channel.crossProcess ? 'posted on process B, stream on process A' : 'one process'}, ${latency.samples.length} answers): median ${latency.median} ms, p95 ${latency.p95} ms, max ${latency.max} ms`,
    `idle streams on process A: ${idle.opened} made in ${idle.makeSeconds.toFixed(1)} s, opened in ${idle.openSeconds.toFixed(1)} s, ${idle.openAtEnd} still open after ${idle.windowSeconds} s idle (${idle.keepAlivesMin}–${idle.keepAlivesMax} keep-alives each)`,
    ...(idle.keepAlivesMin === 0
      ? ['  (a stream saw no keep-alive round in the window: --idle is shorter than DIRECTLINE_KEEPALIVE_MS)']
      : []),
    `  CPU over the window: ${percent(idle.cpuShare)} of a core${others}`,
    `  RSS ${mib(idle.rssBeforeKiB)} before, at most ${mib(idle.rssAfterKiB)} while idle: ${idle.rssPerStreamKiB} KiB per stream`,
  ].join('\n');
}

export function formatCodecTable(rows: CodecRow[]): string {
  if (rows.length === 0) return '';
  const header = Object.keys(rows[0] ?? {});
  return formatColumns(
    header,
    rows.map((row) => header.map((name) => String(row[name] ?? ''))),
  );
}
