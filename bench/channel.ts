/**
 * The channel part (docs/benchmarks.md): the embedded Direct Line channel of `sintonia serve --service
 * assistant-auth,agents`, measured as bench/streams.ts says; its event is the assistant's answer.
 */
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { inBatches, partEnv, sendJson, serveSintonia, sintoniaBin } from './process.ts';
import type { BenchStore } from './store.ts';
import { runStreamPart, type Stream, type StreamSettings } from './streams.ts';

type Conversation = { conversationId: string; token: string; streamUrl: string };
type Activity = { type: string; replyToId?: string; from?: { role?: string } };

/** A new conversation through `url`'s process, its stream URL pointed at `streamBase`'s. */
async function startConversation(url: string, secret: string, streamBase: string): Promise<Conversation> {
  const answer = await sendJson<Conversation>(`${url}/v3/directline/conversations`, secret, {});
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
    else (JSON.parse(text) as { activities: Activity[] }).activities.forEach(onActivity);
  });
  // A refused stream is an error: ws's `Unexpected server response: <status>`.
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return stream;
}

export async function runChannelBench(store: BenchStore, dir: string, settings: StreamSettings) {
  const env = {
    ...(await partEnv(store, dir, 'channel')),
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
      const send = async () => (await sendJson<{ id: string }>(url, conversation.token, message)).id;
      return { stream, send };
    },
    async idle(a, b) {
      const made = await inBatches(settings.streams, 16, () => startConversation(b.url, secret, a.url));
      return (index) => openStream(made[index]?.streamUrl ?? '');
    },
  });
}
