/**
 * The channel part: the embedded Direct Line channel of `sintonia serve --service assistant-auth,agents`.
 * - Answer latency: a stream open on process A, a message posted through process B (on PostgreSQL two
 *   processes on one database and master key; on SQLite one process is both), timed from the post until
 *   the assistant's answer arrives on A's socket.
 * - Idle streams: N conversations made through B, then their N streams open on A; A's resident memory
 *   before and its highest while they idle, its CPU over the idle window (a whole number of keep-alive
 *   rounds), and how many streams are still open at the end.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort, inBatches, type Server, sintoniaBin, startServer } from './process.ts';
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

export type ChannelResult = Awaited<ReturnType<typeof runChannelBench>>;

type Conversation = { conversationId: string; token: string; streamUrl: string };
type Activity = { type: string; replyToId?: string; from?: { role?: string } };
type Stream = { socket: WebSocket; keepAlives: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rssKiB = (pid: number | undefined) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
const percentile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(fraction * values.length) - 1)] ?? Number.NaN;

async function post<T>(url: string, bearer: string, body: unknown): Promise<T> {
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** A new conversation through `url`'s process, its stream URL pointed at `streamBase`'s. */
async function startConversation(url: string, secret: string, streamBase: string): Promise<Conversation> {
  const answer = await post<Conversation>(`${url}/v3/directline/conversations`, secret, {});
  const streamUrl = Object.assign(new URL(answer.streamUrl), { host: new URL(streamBase).host });
  return { ...answer, streamUrl: streamUrl.toString() };
}

/** A stream socket that counts keep-alives (empty messages) and hands every activity to `onActivity`. */
async function openStream(url: string, onActivity: (activity: Activity) => void = () => {}): Promise<Stream> {
  const stream: Stream = { socket: new WebSocket(url, { perMessageDeflate: false }), keepAlives: 0 };
  stream.socket.on('message', (data) => {
    const text = data.toString();
    if (text.length === 0) stream.keepAlives += 1;
    else
      for (const activity of (JSON.parse(text) as { activities: Activity[] }).activities)
        onActivity(activity);
  });
  await new Promise<void>((resolve, reject) => {
    stream.socket.once('open', () => resolve());
    stream.socket.once('error', reject);
    stream.socket.once('unexpected-response', (_, response) =>
      reject(new Error(`stream refused: ${response.statusCode}`)),
    );
  });
  return stream;
}

/** `sintonia serve --service assistant-auth,agents`, ready once both answer. */
async function startChannelProcess(env: Record<string, string>): Promise<Server> {
  const [port, agentsPort] = [await freePort(), await freePort()];
  const args = [sintoniaBin(), 'serve', '--service', 'assistant-auth,agents'];
  const ports = { ASSISTANT_AUTH_PORT: String(port), AGENTS_PORT: String(agentsPort) };
  return startServer({ args, env: { ...env, ...ports }, port, alsoReady: [agentsPort] });
}

/** Posts `samples` + 1 messages through `postUrl`; times each answer's arrival on a stream of `streamBase`. */
async function answerLatency(postUrl: string, streamBase: string, secret: string, samples: number) {
  const conversation = await startConversation(streamBase, secret, streamBase);
  // When each first answer arrived, by the id it replies to: one can arrive before its post has returned.
  const arrivals = new Map<string, number>();
  const stream = await openStream(conversation.streamUrl, ({ type, from, replyToId }) => {
    if (type === 'message' && from?.role === 'bot' && replyToId && !arrivals.has(replyToId))
      arrivals.set(replyToId, performance.now());
  });
  const url = `${postUrl}/v3/directline/conversations/${conversation.conversationId}/activities`;
  const latencies: number[] = [];
  try {
    for (let sample = 0; sample <= samples; sample++) {
      const started = performance.now();
      const message = { type: 'message', from: { id: 'bench' }, text: 'hola' };
      const { id } = await post<{ id: string }>(url, conversation.token, message);
      // Waiting polls, but the figure is the arrival's own time, taken on the stream.
      for (const deadline = started + 30_000; !arrivals.has(id); await sleep(2))
        if (performance.now() > deadline) throw new Error(`no answer to ${id} on the stream within 30 s`);
      // The first answer warms the agent call up (keys, connections): not timed.
      if (sample > 0) latencies.push(Math.round(((arrivals.get(id) ?? 0) - started) * 10) / 10);
    }
  } finally {
    stream.socket.terminate();
  }
  return { samples: latencies, median: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) };
}

export async function runChannelBench(store: BenchStore, dir: string, settings: ChannelSettings) {
  const say = (line: string) => process.stderr.write(`[bench] ${settings.label} channel: ${line}\n`);
  const env: Record<string, string> = {
    SINTONIA_DATA_DIR: join(dir, `channel-${randomBytes(3).toString('hex')}`),
    SINTONIA_MASTER_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: store.kind === 'postgres' ? await store.createDatabase('bench_channel') : '',
    SINTONIA_DEMO: '0',
    HOST: '127.0.0.1',
    DIRECTLINE_KEEPALIVE_MS: String(settings.keepAliveMs),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  };
  // Migrates the store before any server starts, and tells the channel's secret.
  const secretEnv = { ...process.env, ...env, LOG_LEVEL: 'silent' };
  const secretJson = execFileSync(process.execPath, [sintoniaBin(), 'directline-secret'], { env: secretEnv });
  const { secret } = JSON.parse(secretJson.toString()) as { secret: string };
  const crossProcess = store.kind === 'postgres';
  const a = await startChannelProcess(env);
  const b = crossProcess ? await startChannelProcess(env) : a;
  let streams: Stream[] = [];
  try {
    say(`${settings.samples} answers, posted on ${crossProcess ? 'process B' : 'the same process'}`);
    const latencyMs = await answerLatency(b.url, a.url, secret, settings.samples);
    say(`${settings.streams} conversations, then their streams on process A, idle ${settings.idleSeconds} s`);
    const conversations = await inBatches(settings.streams, 16, () =>
      startConversation(b.url, secret, a.url),
    );
    await sleep(1000);
    const rssBeforeKiB = rssKiB(a.pid);
    streams = await inBatches(conversations.length, 32, (i) => openStream(conversations[i]?.streamUrl ?? ''));
    await sleep(1000);
    for (const stream of streams) stream.keepAlives = 0;
    const started = performance.now();
    const cpuBefore = a.cpuMs();
    // The most memory A holds during the window (its keep-alive rounds included), sampled every second.
    let rssAfterKiB = rssKiB(a.pid);
    const end = started + settings.idleSeconds * 1000;
    while (performance.now() < end) {
      await sleep(Math.min(1000, end - performance.now()));
      rssAfterKiB = Math.max(rssAfterKiB, rssKiB(a.pid));
    }
    const cpuMs = (a.cpuMs() ?? Number.NaN) - (cpuBefore ?? Number.NaN);
    const windowMs = performance.now() - started;
    return {
      /** Whether the answer crossed processes (PostgreSQL) or stayed in one (SQLite). */
      crossProcess,
      latencyMs,
      idle: {
        streams: settings.streams,
        /** Streams still open at the end, and the fewest keep-alives one received during the window. */
        openAtEnd: streams.filter((stream) => stream.socket.readyState === WebSocket.OPEN).length,
        keepAlivesMin: Math.min(...streams.map((stream) => stream.keepAlives)),
        windowSeconds: Math.round(windowMs / 100) / 10,
        rssBeforeKiB,
        rssAfterKiB,
        rssPerStreamKiB: Math.round(((rssAfterKiB - rssBeforeKiB) / settings.streams) * 10) / 10,
        /** A's CPU over the window, as a share of one core. */
        cpuShare: Math.round((cpuMs / windowMs) * 10000) / 10000,
      },
    };
  } finally {
    for (const { socket } of streams) socket.terminate();
    await Promise.all([a.stop(), b === a ? undefined : b.stop()]);
  }
}

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

export function formatChannel({ crossProcess, latencyMs: latency, idle }: ChannelResult): string {
  return [
    `answer latency (${crossProcess ? 'posted on process B, stream on process A' : 'one process'}, ${latency.samples.length} answers): median ${latency.median} ms, p95 ${latency.p95} ms`,
    `${idle.streams} idle streams on process A: ${idle.openAtEnd} still open after ${idle.windowSeconds} s (at least ${idle.keepAlivesMin} keep-alives each)`,
    `  CPU over the window: ${(idle.cpuShare * 100).toFixed(1)}% of a core`,
    `  RSS ${mib(idle.rssBeforeKiB)} before, at most ${mib(idle.rssAfterKiB)} while idle: ${idle.rssPerStreamKiB} KiB per stream`,
  ].join('\n');
}
