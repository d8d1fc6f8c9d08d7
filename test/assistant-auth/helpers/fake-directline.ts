import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** What the fake Direct Line service saw: path, Authorization header and JSON body of each call. */
export interface SeenCall {
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeDirectLine {
  url: string;
  secret: string;
  calls: SeenCall[];
  /** How the next answers go: normal, an upstream error status, a non-JSON body or a hang (timeout). */
  mode: 'ok' | 'error' | 'not-json' | 'hang';
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length === 0 ? undefined : JSON.parse(text);
}

/** A Direct Line 3.0–shaped service on loopback: tokens/generate and conversations, Bearer secret checked. */
export async function startFakeDirectLine(): Promise<FakeDirectLine> {
  const secret = `dl-secret-${randomUUID()}`;
  const fake: FakeDirectLine = { url: '', secret, calls: [], mode: 'ok', close: async () => {} };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    fake.calls.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
    if (fake.mode === 'hang') return;
    if (fake.mode === 'error') {
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"BotError"}}');
      return;
    }
    if (fake.mode === 'not-json') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      return;
    }
    if (request.method !== 'POST' || request.headers.authorization !== `Bearer ${secret}`) {
      response.writeHead(403, { 'content-type': 'application/json' }).end('{"error":{"code":"BadArgument"}}');
      return;
    }
    const conversationId = `conv-${randomUUID()}`;
    const token = `dltoken.${randomUUID()}`;
    if (request.url === '/v3/directline/tokens/generate') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ conversationId, token, expires_in: 3600 }));
      return;
    }
    if (request.url === '/v3/directline/conversations') {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          conversationId,
          token,
          expires_in: 1800,
          streamUrl: `wss://directline.example/v3/directline/conversations/${conversationId}/stream?watermark=-&t=x`,
          referenceGrammarId: 'grammar-1',
        }),
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
