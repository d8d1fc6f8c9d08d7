/**
 * The targets the bench checks, per store: the hot paths against the bare baseline of the same run, and
 * the channel's answer latency and idle-stream cost. Each is printed as met or not met beside its figure;
 * a target whose figures this run did not measure (`--only`) says so.
 */
import type { ChannelResult } from './channel.ts';
import type { PathResult } from './report.ts';
import type { DatabaseKind } from './store.ts';

export interface GoalCheck {
  goal: string;
  /** The figure, as printed. */
  measured: string;
  met: boolean | undefined;
}

/** One sintonia path beside the bare path of the same operation in the same run. */
export interface Comparison {
  path: string;
  ours: PathResult;
  bare: PathResult;
}

const bareName = { read: 'bare read', write: 'bare upsert', devices: 'bare device list' } as const;

/** Each JSON path of ours beside its bare twin (the other formats have no bare twin). */
export function comparisons(results: PathResult[]): Comparison[] {
  return results.flatMap((ours) => {
    if (ours.target === 'bare' || ours.format !== 'json') return [];
    const bare = results.find((r) => r.target === 'bare' && r.name === bareName[ours.operation]);
    return bare ? [{ path: ours.name, ours, bare }] : [];
  });
}

const limits = {
  sqlite: { read: 0.85, write: 0.9 },
  postgres: { read: 0.7, write: 0.8 },
} as const;
const ANSWER_MEDIAN_MS = 250;
const IDLE_CPU_SHARE = 0.05;
const RSS_PER_STREAM_KIB = 64;
/** PostgreSQL: the authenticated read's p99, in ms. */
const PG_READ_P99_MS = 10;
/** SQLite: the save's p99 at most this many times the bare upsert's. */
const SQLITE_SAVE_P99_FACTOR = 2;

/**
 * Ours over bare: the median of each round's ratio (each round measures bare right before ours), which a
 * slow round of one target alone moves less than the ratio of the two medians; that, with one round.
 */
export const ratioOf = (c: Comparison) =>
  c.ours.ratioToBare ?? c.ours.requestsPerSecond / c.bare.requestsPerSecond;
const unmeasured = (goal: string): GoalCheck => ({ goal, measured: 'not measured', met: undefined });

export function httpGoals(kind: DatabaseKind, results: PathResult[]): GoalCheck[] {
  const pairs = comparisons(results);
  const read = pairs.find((c) => c.ours.operation === 'read');
  const save = pairs.find((c) => c.ours.operation === 'write');
  const ratioGoal = (what: string, pair: Comparison | undefined, limit: number): GoalCheck => {
    const goal = `${what} ≥ ${limit}× bare`;
    if (!pair) return unmeasured(goal);
    const ratio = ratioOf(pair);
    return { goal, measured: `${ratio.toFixed(2)}×`, met: ratio >= limit };
  };
  const checks = [
    ratioGoal('authenticated read req/s', read, limits[kind].read),
    ratioGoal('save req/s', save, limits[kind].write),
  ];
  if (kind === 'postgres') {
    const goal = `authenticated read p99 ≤ ${PG_READ_P99_MS} ms`;
    checks.push(
      read
        ? { goal, measured: `${read.ours.p99} ms`, met: read.ours.p99 <= PG_READ_P99_MS }
        : unmeasured(goal),
    );
  } else {
    const goal = `save p99 ≤ ${SQLITE_SAVE_P99_FACTOR}× bare upsert p99`;
    checks.push(
      save
        ? {
            goal,
            measured: `${save.ours.p99} ms vs ${save.bare.p99} ms`,
            met: save.ours.p99 <= SQLITE_SAVE_P99_FACTOR * save.bare.p99,
          }
        : unmeasured(goal),
    );
  }
  return checks;
}

export function channelGoals(channel: ChannelResult): GoalCheck[] {
  const { latencyMs, idle } = channel;
  const where = channel.crossProcess ? 'on another process' : 'in the same process';
  return [
    {
      goal: `answer reaches a stream ${where}: median ≤ ${ANSWER_MEDIAN_MS} ms`,
      measured: `${latencyMs.median} ms`,
      met: latencyMs.median <= ANSWER_MEDIAN_MS,
    },
    {
      goal: `${idle.streams} idle streams: ≤ ${IDLE_CPU_SHARE * 100}% of a core`,
      measured: `${(idle.cpuShare * 100).toFixed(1)}%`,
      met: idle.cpuShare <= IDLE_CPU_SHARE,
    },
    {
      goal: `${idle.streams} idle streams: ≤ ${RSS_PER_STREAM_KIB} KiB each`,
      measured: `${idle.rssPerStreamKiB} KiB`,
      met: idle.rssPerStreamKiB <= RSS_PER_STREAM_KIB,
    },
    {
      goal: `${idle.streams} idle streams: none dropped`,
      measured: `${idle.openAtEnd}/${idle.streams} open`,
      met: idle.openAtEnd === idle.streams,
    },
  ];
}
