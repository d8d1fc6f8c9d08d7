import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';

export interface StreamActivity {
  type: string;
  id: string;
  text?: string;
  from: { id: string; name?: string; role?: string };
  replyToId?: string;
  value?: unknown;
  channelData?: unknown;
  conversation: { id: string };
}

export interface ActivitySet {
  activities: StreamActivity[];
  watermark?: string;
}

/** A WebSocket client of a Direct Line stream that keeps every set and keep-alive it receives. */
export interface StreamClient {
  socket: WebSocket;
  sets: ActivitySet[];
  keepAlives: number;
  /** Every activity received so far, in order. */
  activities(): StreamActivity[];
  /** Resolves once an activity matches, or rejects after timeoutMs. */
  waitFor(match: (activity: StreamActivity) => boolean, timeoutMs?: number): Promise<StreamActivity>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

export async function openStream(url: string): Promise<StreamClient> {
  const socket = new WebSocket(url);
  const client: StreamClient = {
    socket,
    sets: [],
    keepAlives: 0,
    activities: () => client.sets.flatMap((set) => set.activities),
    waitFor(match, timeoutMs = 30000) {
      return new Promise((resolve, reject) => {
        const check = () => client.activities().find(match);
        const found = check();
        if (found) return resolve(found);
        const timer = setTimeout(() => {
          socket.off('message', onMessage);
          reject(new Error(`no matching activity within ${timeoutMs} ms: ${JSON.stringify(client.sets)}`));
        }, timeoutMs);
        const onMessage = () => {
          const hit = check();
          if (hit) {
            clearTimeout(timer);
            socket.off('message', onMessage);
            resolve(hit);
          }
        };
        socket.on('message', onMessage);
      });
    },
    closed: new Promise((resolve) => {
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    }),
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      socket.close();
      await client.closed;
    },
  };
  // Registered before 'open' resolves so the first pushed set is never missed.
  socket.prependListener('message', (data) => {
    const text = data.toString();
    if (text.length === 0) client.keepAlives += 1;
    else client.sets.push(JSON.parse(text) as ActivitySet);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return client;
}

/**
 * Opening a stream that the server refuses: the HTTP status, Retry-After and body it answered the upgrade
 * with, and the body's first error type.
 */
export function refusedUpgrade(
  url: string,
): Promise<{ status: number; retryAfter?: string; body: unknown; type?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as { errors?: Array<{ type: string }> }) : undefined;
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
          body,
          type: body?.errors?.[0]?.type,
        });
        socket.terminate();
      });
    });
    socket.on('open', () => {
      socket.close();
      reject(new Error('the stream was opened'));
    });
    socket.on('error', () => {});
  });
}

export interface AgentCall {
  name: string;
  authorization: string | undefined;
  body: { input?: string; conversationId?: string };
}

/** A loopback stand-in for the agents server, for the cases the real one cannot be made to produce (429). */
export interface AgentsStub {
  url: string;
  calls: AgentCall[];
  /** What to answer; undefined leaves the call hanging (an agent that never answers). */
  answer: (
    call: AgentCall,
  ) => { status: number; headers?: Record<string, string>; body: unknown } | undefined;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Answers a call to `/agents/{name}/{mode}` as the agents server does: an invoke as JSON; a stream as
 * Server-Sent Events (the whole output as one chunk, then the answer) once it succeeds, else as JSON.
 */
export function sendAgentAnswer(
  response: ServerResponse,
  mode: string,
  answer: { status: number; headers?: Record<string, string>; body: unknown },
): void {
  const { status, headers, body } = answer;
  if (mode === 'stream' && status === 200) {
    const output = (body as { output?: unknown } | undefined)?.output;
    response.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
    if (typeof output === 'string')
      response.write(`event: chunk\ndata: ${JSON.stringify({ text: output })}\n\n`);
    response.end(`event: done\ndata: ${JSON.stringify(body)}\n\n`);
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export async function startAgentsStub(): Promise<AgentsStub> {
  const stub: AgentsStub = {
    url: '',
    calls: [],
    answer: (call) => ({ status: 200, body: { output: `echo: ${call.body.input ?? ''}` } }),
    close: async () => {},
  };
  const server: Server = createServer((request, response) => {
    void readBody(request).then((text) => {
      const [, name = '', mode] = /^\/agents\/([^/]+)\/(invoke|stream)$/.exec(request.url ?? '') ?? [];
      const call = { name, authorization: request.headers.authorization, body: JSON.parse(text || '{}') };
      stub.calls.push(call);
      const answer = stub.answer(call);
      if (!answer) return;
      const { status, headers, body } = answer;
      sendAgentAnswer(response, mode ?? 'invoke', { status, headers, body });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return stub;
}
