/**
 * The channel part: the embedded Direct Line channel of `sintonia serve --service assistant-auth,agents`,
 * measured as bench/streams.ts says. The latency: a message posted through B, timed until the assistant's
 * answer arrives on A's socket. The idle streams: N conversations made through B, their streams open on A.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import WebSocket from 'ws';
import { inBatches, postJson as post, productEnv, serveSintonia, sintoniaBin } from './process.ts';
import type { BenchStore } from './store.ts';
import { runStreamPart, type Stream, type StreamSettings } from './streams.ts';

type Conversation = { conversationId: string; token: string; streamUrl: string };
type Activity = { type: string; replyToId?: string; from?: { role?: string } };

/** A new conversation through `url`'s process, its stream URL pointed at `streamBase`'s. */
async function startConversation(url: string, secret: string, streamBase: string): Promise<Conversation> {
  const answer = await post<Conversation>(`${url}/v3/directline/conversations`, secret, {});
  const streamUrl = Object.assign(new URL(answer.streamUrl), { host: new URL(streamBase).host });
  return { ...answer, streamUrl: streamUrl.toString() };
}

/** A stream socket that counts keep-alives (empty messages) and hands every activity to `onActivity`. */
async function openStream(url: string, onActivity: (activity: Activity) => void = () => {}): Promise<Stream> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const isOpen = () => socket.readyState === WebSocket.OPEN;
  const stream = { keepAlives: 0, isOpen, close: () => socket.terminate() };
  socket.on('message', (data) => {
    const text = data.toString();
    if (text.length === 0) stream.keepAlives += 1;
    else
      for (const activity of (JSON.parse(text) as { activities: Activity[] }).activities)
        onActivity(activity);
  });
  // A refused stream is an error: ws's `Unexpected server response: <status>`.
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return stream;
}

export async function runChannelBench(store: BenchStore, dir: string, settings: StreamSettings) {
  const databaseUrl = store.kind === 'postgres' ? await store.createDatabase('bench_channel') : '';
  const env = {
    ...productEnv(join(dir, `channel-${randomBytes(3).toString('hex')}`), databaseUrl),
    DIRECTLINE_KEEPALIVE_MS: String(settings.keepAliveSeconds * 1000),
  };
  // Migrates the store before any server starts, and tells the channel's secret.
  const secretEnv = { ...process.env, ...env, LOG_LEVEL: 'silent' };
  const secretJson = execFileSync(process.execPath, [sintoniaBin(), 'directline-secret'], { env: secretEnv });
  const { secret } = JSON.parse(secretJson.toString()) as { secret: string };
  return runStreamPart(store, settings, {
    noun: 'answer',
    streams: 'conversation streams',
    start: () => serveSintonia('assistant-auth,agents', env, ['ASSISTANT_AUTH_PORT', 'AGENTS_PORT']),
    async timed(a, b, arrivals) {
      const conversation = await startConversation(a.url, secret, a.url);
      // Each first answer's arrival, by the id it replies to: one can arrive before its post has returned.
      const stream = await openStream(conversation.streamUrl, ({ type, from, replyToId }) => {
        if (type === 'message' && from?.role === 'bot' && replyToId && !arrivals.has(replyToId))
          arrivals.set(replyToId, performance.now());
      });
      const url = `${b.url}/v3/directline/conversations/${conversation.conversationId}/activities`;
      const message = { type: 'message', from: { id: 'bench' }, text: 'hola' };
      return { stream, send: async () => (await post<{ id: string }>(url, conversation.token, message)).id };
    },
    async idle(a, b) {
      const made = await inBatches(settings.streams, 16, () => startConversation(b.url, secret, a.url));
      return (index) => openStream(made[index]?.streamUrl ?? '');
    },
  });
}
