import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { createTestCore, type TestCore } from '../../helpers/harness.ts';

export interface ModelRequest {
  headers: IncomingMessage['headers'];
  /** Resolves if the caller closes this request's connection before its response finished. */
  aborted: Promise<void>;
  body: { model?: string; stream?: boolean; messages?: Array<{ role: string; content: string }> };
}

export type ModelHandler = (request: ModelRequest, response: ServerResponse) => void;

/**
 * An OpenAI-compatible chat-completions server on loopback, answering with whatever the test says.
 * It records each request, and whether the client side of each one closed early.
 */
export interface ModelServer {
  baseUrl: string;
  host: string;
  requests: ModelRequest[];
  /** Resolves when the next request arrives. */
  nextRequest(): Promise<ModelRequest>;
  handle(handler: ModelHandler): void;
  close(): Promise<void>;
}

export async function startModelServer(): Promise<ModelServer> {
  let handler: ModelHandler = (_request, response) => response.writeHead(500).end();
  const requests: ModelRequest[] = [];
  const requestWaiters: Array<(request: ModelRequest) => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const aborted = new Promise<void>((resolve) => {
        res.on('close', () => {
          if (!res.writableFinished) resolve();
        });
      });
      const body = JSON.parse(Buffer.concat(chunks).toString()) as ModelRequest['body'];
      const request: ModelRequest = { headers: req.headers, aborted, body };
      requests.push(request);
      for (const resolve of requestWaiters.splice(0)) resolve(request);
      handler(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    host: `127.0.0.1:${port}`,
    requests,
    nextRequest: () => new Promise((resolve) => requestWaiters.push(resolve)),
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A chat-completions answer of the given text. */
export function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: 'test-model-2026',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });
}

/** One streamed chunk of a chat completion, as an SSE event. */
export function streamChunk(content: string): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
}

/** For the calling suite: a fresh core and a fake model server, made before its tests and closed after them (read inside the tests). */
export function suiteCoreAndModel(): { readonly core: TestCore; readonly model: ModelServer } {
  let made: { core: TestCore; model: ModelServer } | undefined;
  before(async () => {
    made = { core: await createTestCore(), model: await startModelServer() };
  });
  after(async () => {
    await made?.model.close();
    await made?.core.dispose();
  });
  const ready = () => {
    if (made === undefined)
      throw new Error("suiteCoreAndModel: read inside a test, after the suite's before()");
    return made;
  };
  return {
    get core() {
      return ready().core;
    },
    get model() {
      return ready().model;
    },
  };
}

/** A scripted model turn: a text answer, or tool calls (each a tool's name and its arguments as JSON text). */
export type ScriptedTurn = { text: string } | { calls: Array<{ name: string; arguments: string }> };

/** The assistant message of a chat completion answering `turn`; tool call `index` has the id `idOf(index)`. */
export function scriptedMessage(turn: ScriptedTurn, idOf: (index: number) => string) {
  return 'text' in turn
    ? { role: 'assistant', content: turn.text }
    : {
        role: 'assistant',
        content: null,
        tool_calls: turn.calls.map((call, index) => ({ id: idOf(index), type: 'function', function: call })),
      };
}

/**
 * Answers a chat-completions request with `message` (as scriptedMessage makes it) as OpenAI does: one JSON
 * completion, or, for a streamed request, the whole message as one delta then `[DONE]`.
 */
export function answerScripted(
  request: ModelRequest,
  response: ServerResponse,
  message: ReturnType<typeof scriptedMessage>,
): void {
  if (request.body.stream) {
    const delta =
      message.tool_calls === undefined
        ? { content: message.content }
        : { tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) };
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
    response.end('data: [DONE]\n\n');
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ model: 'scripted', choices: [{ index: 0, message }] }));
}
