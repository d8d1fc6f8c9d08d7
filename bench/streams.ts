/**
 * What the stream parts share (docs/benchmarks.md), on two processes of one store (one on SQLite): an event
 * timed from a request through B until it arrives on a stream of A; then N streams idle on A for two
 * keep-alive rounds (any window of k intervals holds exactly k): A's CPU, memory per stream, streams open.
 */
import { readFileSync } from 'node:fs';
import { inBatches, type Server, sleep } from './process.ts';
import { check } from './report.ts';
import type { BenchStore } from './store.ts';

export type StreamSettings = { samples: number; streams: number; keepAliveSeconds: number; label: string };
/** A stream the bench holds: the keep-alives it received, whether it is still open. */
export type Stream = { keepAlives: number; isOpen(): boolean; close(): void };
export type StreamResult = Awaited<ReturnType<typeof runStreamPart>>;

export interface StreamPart {
  /** What arrives (`answer`), on what (`conversation streams`). */
  noun: string;
  streams: string;
  start(): Promise<Server>;
  /** A stream on A that records each event's arrival by id in `at`, and a request through B answering one. */
  timed(a: Server, b: Server, at: Map<string, number>): Promise<{ stream: Stream; send(): Promise<string> }>;
  /** Whatever the idle streams need made (through B), then how to open the i-th on A. */
  idle(a: Server, b: Server): Promise<(index: number) => Promise<Stream>>;
}

const rssKiB = (pid: number | undefined) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

async function latency({ noun, timed }: StreamPart, a: Server, b: Server, samples: number) {
  const arrivals = new Map<string, number>();
  const { stream, send } = await timed(a, b, arrivals);
  const latencies: number[] = [];
  try {
    for (let sample = 0; sample <= samples; sample++) {
      const started = performance.now();
      const id = await send();
      // Waiting polls, but the figure is the arrival's own time, taken on the stream.
      for (const deadline = started + 30_000; !arrivals.has(id); await sleep(2))
        if (performance.now() > deadline) throw new Error(`no ${noun} ${id} on the stream within 30 s`);
      if (sample > 0) latencies.push(round((arrivals.get(id) ?? 0) - started, 1));
    }
  } finally {
    stream.close();
  }
  const sorted = latencies.toSorted((x, y) => x - y);
  const at = (part: number) => sorted[Math.max(0, Math.ceil(part * sorted.length) - 1)] ?? Number.NaN;
  return { samples: latencies, median: at(0.5), p95: at(0.95), p99: at(0.99) };
}

async function idle(a: Server, count: number, seconds: number, open: (index: number) => Promise<Stream>) {
  await sleep(1000);
  const rssBeforeKiB = rssKiB(a.pid);
  // A third first: what the rest adds is what one more stream costs, without the process's own growth
  // (its young generation, code) that the first streams bring on.
  const third = Math.floor(count / 3);
  const streams = await inBatches(third, 32, open);
  await sleep(1000);
  const rssAtThirdKiB = rssKiB(a.pid);
  streams.push(...(await inBatches(count - third, 32, (index) => open(third + index))));
  try {
    await sleep(1000);
    for (const stream of streams) stream.keepAlives = 0;
    const [started, cpuBefore] = [performance.now(), a.cpuMs() ?? Number.NaN];
    let rssAfterKiB = rssKiB(a.pid);
    for (const end = started + seconds * 1000; performance.now() < end; ) {
      await sleep(Math.min(1000, end - performance.now()));
      rssAfterKiB = Math.max(rssAfterKiB, rssKiB(a.pid));
    }
    const windowMs = performance.now() - started;
    return {
      streams: count,
      /** Streams still open at the end, and the fewest keep-alives one received during the window. */
      openAtEnd: streams.filter((stream) => stream.isOpen()).length,
      keepAlivesMin: Math.min(...streams.map((stream) => stream.keepAlives)),
      windowSeconds: round(windowMs / 1000, 1),
      rssBeforeKiB,
      rssAfterKiB,
      rssPerStreamKiB: round((rssAfterKiB - rssBeforeKiB) / count, 1),
      /** What each stream past the first third added. */
      rssPerMoreStreamKiB: round((rssAfterKiB - rssAtThirdKiB) / (count - third), 1),
      /** A's CPU over the window, as a share of one core. */
      cpuShare: round(((a.cpuMs() ?? Number.NaN) - cpuBefore) / windowMs, 4),
    };
  } finally {
    for (const stream of streams) stream.close();
  }
}

export async function runStreamPart(store: BenchStore, settings: StreamSettings, part: StreamPart) {
  const say = (line: string) => process.stderr.write(`[bench] ${settings.label} ${part.noun}s: ${line}\n`);
  /** Whether the event crossed processes (PostgreSQL) or stayed in one (SQLite). */
  const crossProcess = store.kind === 'postgres';
  const a = await part.start();
  let b = a;
  try {
    if (crossProcess) b = await part.start();
    say(`${settings.samples} timed, sent through ${crossProcess ? 'process B' : 'the same process'}`);
    const latencyMs = await latency(part, a, b, settings.samples);
    const seconds = 2 * settings.keepAliveSeconds;
    say(`${settings.streams} streams on process A, idle ${seconds} s`);
    const idled = await idle(a, settings.streams, seconds, await part.idle(a, b));
    return { noun: part.noun, streams: part.streams, crossProcess, latencyMs, idle: idled };
  } finally {
    await Promise.all([a.stop(), b === a ? undefined : b.stop()]);
  }
}

/** The median latency at most `ms`; idle streams at most 5% of a core and `kib` KiB each, none dropped. */
export function streamFloors(result: StreamResult, ms: number, kib: number) {
  const { noun, streams, crossProcess, latencyMs, idle } = result;
  const { rssPerMoreStreamKiB: more, rssPerStreamKiB: whole } = idle;
  const at = (shown: string, atMost = true) => ({ shown, atMost, tolerance: 0 });
  const where = `${noun} on a stream of ${crossProcess ? 'another' : 'the same'} process`;
  return [
    check(`${where}: median ≤ ${ms} ms`, latencyMs.median, ms, at(`${latencyMs.median} ms`)),
    check(`idle ${streams}: ≤ 5% of a core`, idle.cpuShare, 0.05, at(`${(idle.cpuShare * 100).toFixed(1)}%`)),
    // What one stream costs is what one more adds; the whole growth over N also holds the process's own,
    // which the first streams bring on and which does not grow with N (shown beside, not checked).
    check(`idle ${streams}: ≤ ${kib} KiB each`, more, kib, at(`${more} KiB (whole growth ${whole} KiB)`)),
    check(`idle ${streams}: none dropped`, idle.openAtEnd, idle.streams, at(`${idle.openAtEnd}`, false)),
  ];
}

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

export const formatStreams = ({ noun, streams, crossProcess, latencyMs: latency, idle }: StreamResult) =>
  [
    `${noun} latency (${crossProcess ? 'sent through process B, stream on process A' : 'one process'}, ${latency.samples.length} ${noun}s): median ${latency.median} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms`,
    `${idle.streams} idle ${streams} on process A: ${idle.openAtEnd} still open after ${idle.windowSeconds} s (at least ${idle.keepAlivesMin} keep-alives each)`,
    `  CPU over the window: ${(idle.cpuShare * 100).toFixed(1)}% of a core`,
    `  RSS ${mib(idle.rssBeforeKiB)} before, at most ${mib(idle.rssAfterKiB)} while idle: ${idle.rssPerStreamKiB} KiB per stream, ${idle.rssPerMoreStreamKiB} KiB each past the first third`,
  ].join('\n');
