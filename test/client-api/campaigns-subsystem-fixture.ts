import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type SubsystemMode =
  | { kind: 'answer'; status: number; body?: unknown; raw?: string }
  | { kind: 'hang' }
  | { kind: 'reset' };

export interface SeenRequest {
  method: string;
  url: string;
  body: unknown;
}

export interface FakeSubsystem {
  url: string;
  seen: SeenRequest[];
  /** What the next requests get (until changed). */
  mode: SubsystemMode;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback standing in for a configured subsystem: it answers what the test
 * sets, hangs, or drops the connection, and records what it was sent.
 */
export async function startFakeSubsystem(): Promise<FakeSubsystem> {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeSubsystem = {
    url: '',
    seen: [],
    mode: { kind: 'answer', status: 200, body: {} },
    close: async () => {},
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      fake.seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        body: text ? JSON.parse(text) : undefined,
      });
      const mode = fake.mode;
      if (mode.kind === 'hang') return;
      if (mode.kind === 'reset') {
        request.socket.destroy();
        return;
      }
      if (mode.raw !== undefined) {
        response.writeHead(mode.status, { 'content-type': 'text/plain' }).end(mode.raw);
      } else if (mode.body === undefined) {
        response.writeHead(mode.status).end();
      } else {
        response
          .writeHead(mode.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(mode.body));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return fake;
}
