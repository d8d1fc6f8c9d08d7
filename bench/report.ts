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
}

export interface CodecRow {
  [column: string]: string | number;
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
