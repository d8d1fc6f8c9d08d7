/**
 * The channel part of the bench: the embedded Direct Line channel of `sintonia serve` (assistant-auth and
 * the agents server in one process), on the bench's store.
 *
 * - Answer latency: a stream open on process A, a message posted through process B (on PostgreSQL two
 *   processes on one database, with the same master key; on SQLite, one process is both), timed from the
 *   post until the assistant's answer arrives on A's socket.
 * - Idle streams: N conversations made through another process (on SQLite a second process on the same
 *   store, stopped once they exist), then N streams open on A; A's resident memory before and its
 *   highest while they idle, its CPU time over the idle window (a whole number of keep-alive rounds),
 *   and how many streams are still open at the end.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort, root, type Server, startServer } from './process.ts';
import type { BenchStore } from './store.ts';

export interface ChannelSettings {
  /** Answers timed (after one untimed warm-up). */
  samples: number;
  streams: number;
  idleSeconds: number;
  /** The keep-alive interval of the processes (DIRECTLINE_KEEPALIVE_MS). */
  keepAliveMs: number;
  label: string;
}

export interface ChannelResult {
  /** Whether the answer crossed processes (PostgreSQL) or stayed in one (SQLite). */
  crossProcess: boolean;
  latencyMs: { samples: number[]; median: number; p95: number; max: number };
  idle: {
    streams: number;
    opened: number;
    openAtEnd: number;
    /** Keep-alive messages a stream received during the window: fewest and most over the streams. */
    keepAlivesMin: number;
    keepAlivesMax: number;
    /** Seconds to make the conversations (through another process), then to open their streams. */
    makeSeconds: number;
    openSeconds: number;
    windowSeconds: number;
    /** A's resident memory before the streams open, and the most it held while they were idle. */
    rssBeforeKiB: number;
    rssAfterKiB: number;
    rssPerStreamKiB: number;
    /** CPU time of the streams' process over the window, as a share of one core. */
    cpuShare: number;
    /** The same for the other process (PostgreSQL) and for the database cluster when it is ours. */
    otherProcessCpuShare?: number;
    databaseCpuShare?: number;
  };
}

/** The CLI of this checkout, or of BENCH_SINTONIA_ROOT's (before/after figures against an older commit). */
const sintoniaBin = () => join(process.env.BENCH_SINTONIA_ROOT ?? root, 'bin/sintonia.mjs');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rssKiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
}

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

interface Conversation {
  conversationId: string;
  token: string;
  streamUrl: string;
}

interface Activity {
  type: string;
  replyToId?: string;
  from?: { role?: string };
}

async function call<T>(url: string, bearer: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** A new conversation through `url`'s process, its stream URL pointed at `streamBase` (process A). */
async function startConversation(url: string, secret: string, streamBase: string): Promise<Conversation> {
  const answer = await call<Conversation>(`${url}/v3/directline/conversations`, secret, {});
  const stream = new URL(answer.streamUrl);
  const base = new URL(streamBase);
  stream.host = base.host;
  return { ...answer, streamUrl: stream.toString() };
}

/** A stream socket that counts keep-alives and hands every activity to `onActivity`. */
async function openStream(
  streamUrl: string,
  onActivity: (activity: Activity) => void = () => {},
): Promise<{ socket: WebSocket; keepAlives: () => number }> {
  const socket = new WebSocket(streamUrl, { perMessageDeflate: false });
  let keepAlives = 0;
  socket.on('message', (data) => {
    const text = data.toString();
    if (text.length === 0) {
      keepAlives += 1;
      return;
    }
    for (const activity of (JSON.parse(text) as { activities: Activity[] }).activities) onActivity(activity);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`stream refused: ${response.statusCode}`)),
    );
  });
  return { socket, keepAlives: () => keepAlives };
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

async function startChannelProcess(env: Record<string, string>): Promise<Server & { agentsUrl: string }> {
  const [port, agentsPort] = [await freePort(), await freePort()];
  const server = await startServer({
    args: [sintoniaBin(), 'serve', '--service', 'assistant-auth,agents'],
    env: { ...env, ASSISTANT_AUTH_PORT: String(port), AGENTS_PORT: String(agentsPort) },
    port,
    readyPath: '/readyz',
  });
  const agentsUrl = `http://127.0.0.1:${agentsPort}`;
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${agentsUrl}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    if (tries > 300) throw new Error('the agents server did not become ready');
    await sleep(100);
  }
  return { ...server, agentsUrl };
}

/** Posts `samples` + 1 messages through `postUrl` and times each answer's arrival on a stream of `streamUrl`'s process. */
async function answerLatency(postUrl: string, streamBase: string, secret: string, samples: number) {
  const conversation = await startConversation(streamBase, secret, streamBase);
  const waiting = new Map<string, () => void>();
  const stream = await openStream(conversation.streamUrl, (activity) => {
    if (activity.type === 'message' && activity.from?.role === 'bot' && activity.replyToId)
      waiting.get(activity.replyToId)?.();
  });
  const latencies: number[] = [];
  try {
    for (let sample = 0; sample <= samples; sample++) {
      const started = performance.now();
      let arrived = () => {};
      const answered = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const { id } = await call<{ id: string }>(
        `${postUrl}/v3/directline/conversations/${conversation.conversationId}/activities`,
        conversation.token,
        { type: 'message', from: { id: 'bench' }, text: 'hola' },
      );
      waiting.set(id, arrived);
      const timeout = sleep(30_000).then(() => {
        throw new Error(`no answer to ${id} on the stream within 30 s`);
      });
      await Promise.race([answered, timeout]);
      waiting.delete(id);
      // The first answer warms up the agent call (keys, connections): not timed.
      if (sample > 0) latencies.push(Math.round((performance.now() - started) * 10) / 10);
    }
  } finally {
    stream.socket.terminate();
  }
  return {
    samples: latencies,
    median: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    max: Math.max(...latencies),
  };
}

export async function runChannelBench(
  store: BenchStore,
  dir: string,
  settings: ChannelSettings,
): Promise<ChannelResult> {
  const say = (line: string) => process.stderr.write(`[bench] ${settings.label} channel: ${line}\n`);
  const env: Record<string, string> = {
    SINTONIA_DATA_DIR: join(dir, `channel-${randomBytes(3).toString('hex')}`),
    // Every process of one store has the same master key.
    SINTONIA_MASTER_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: store.kind === 'postgres' ? await store.createDatabase('bench_channel') : '',
    SINTONIA_DEMO: '0',
    HOST: '127.0.0.1',
    DIRECTLINE_KEEPALIVE_MS: String(settings.keepAliveMs),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  };
  // Migrates the store before any server starts, and tells the channel's secret.
  const { secret } = JSON.parse(
    execFileSync(process.execPath, [sintoniaBin(), 'directline-secret'], {
      cwd: root,
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    }),
  ) as { secret: string };
  const crossProcess = store.kind === 'postgres';
  const streams = await startChannelProcess(env);
  const other = crossProcess ? await startChannelProcess(env) : undefined;
  const poster = other ?? streams;
  const sockets: Array<{ socket: WebSocket; keepAlives: () => number }> = [];
  try {
    say(`${settings.samples} answers, posted on ${crossProcess ? 'process B' : 'the same process'}`);
    const latencyMs = await answerLatency(poster.url, streams.url, secret, settings.samples);

    // The conversations come from another process, so that their making leaves nothing in A's memory:
    // on SQLite a second process on the same store, for this only.
    say(`${settings.streams} conversations through another process, then their streams on process A`);
    const creator = other ?? (await startChannelProcess(env));
    const made = Date.now();
    let conversations: Conversation[];
    let makeSeconds: number;
    try {
      conversations = await inParallel(
        Array.from({ length: settings.streams }, (_, index) => index),
        16,
        () => startConversation(creator.url, secret, streams.url),
      );
      makeSeconds = (Date.now() - made) / 1000;
    } finally {
      if (creator !== other) await creator.stop();
    }
    await sleep(1000);
    const rssBeforeKiB = rssKiB(streams.pid);
    const openStarted = Date.now();
    const opened = await inParallel(conversations, 32, async (conversation) => {
      const stream = await openStream(conversation.streamUrl);
      sockets.push(stream);
      return stream;
    });
    const openSeconds = (Date.now() - openStarted) / 1000;
    await sleep(1000);
    const keepAlivesBefore = opened.map((stream) => stream.keepAlives());
    const cpu = () => ({ streams: streams.cpuMs(), other: other?.cpuMs(), database: store.cpuMs() });
    const before = { at: performance.now(), ...cpu() };
    say(`${opened.length} streams open in ${openSeconds.toFixed(1)} s; idle for ${settings.idleSeconds} s`);
    // The most memory A holds during the window (its keep-alive rounds included), sampled every second.
    let rssAfterKiB = rssKiB(streams.pid);
    const windowEnd = before.at + settings.idleSeconds * 1000;
    while (performance.now() < windowEnd) {
      await sleep(Math.min(1000, windowEnd - performance.now()));
      rssAfterKiB = Math.max(rssAfterKiB, rssKiB(streams.pid));
    }
    const after = { at: performance.now(), ...cpu() };
    const windowMs = after.at - before.at;
    const share = (from: number | undefined, to: number | undefined) =>
      from === undefined || to === undefined
        ? undefined
        : Math.round(((to - from) / windowMs) * 10000) / 10000;
    const received = opened.map((stream, index) => stream.keepAlives() - (keepAlivesBefore[index] ?? 0));
    const openAtEnd = opened.filter((stream) => stream.socket.readyState === WebSocket.OPEN).length;
    return {
      crossProcess,
      latencyMs,
      idle: {
        streams: settings.streams,
        opened: opened.length,
        openAtEnd,
        keepAlivesMin: Math.min(...received),
        keepAlivesMax: Math.max(...received),
        makeSeconds,
        openSeconds,
        windowSeconds: Math.round(windowMs / 100) / 10,
        rssBeforeKiB,
        rssAfterKiB,
        rssPerStreamKiB: Math.round(((rssAfterKiB - rssBeforeKiB) / settings.streams) * 10) / 10,
        cpuShare: share(before.streams, after.streams) ?? Number.NaN,
        otherProcessCpuShare: share(before.other, after.other),
        databaseCpuShare: share(before.database, after.database),
      },
    };
  } finally {
    for (const { socket } of sockets) socket.terminate();
    await Promise.all([streams.stop(), other?.stop()]);
  }
}
