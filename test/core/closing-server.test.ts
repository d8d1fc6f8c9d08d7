import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type App, buildServiceApp, type ServiceDefinition } from '../../src/core/http/service-app.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';

let release: () => void = () => {};
let entered = false;

const probe: ServiceDefinition = {
  name: 'agents',
  async plugin(app) {
    app.get('/slow', async () => {
      entered = true;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { slow: true };
    });
    app.get('/quick', async () => ({ quick: true }));
  },
};

/** Writes raw HTTP/1.1 on one connection and keeps what comes back. */
function rawClient(port: number): { socket: Socket; received: () => string } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {});
  return { socket, received: () => received };
}

const answers = (text: string) => text.split(/(?=HTTP\/1\.1 \d{3})/).filter(Boolean);

/**
 * A request that reaches a server already closing — the next request on a kept-alive connection, sent while
 * the close waits for another request — is served like any other, with Connection: close; not Fastify's bare
 * 503 (`{"error":"Service Unavailable",…}`, not the family's body), which a proxy in front could neither
 * retry (the request may have been read) nor tell from a store outage.
 */
describe('a server that is closing serves the requests that still reach it', () => {
  let core: TestCore;
  let app: App;

  before(async () => {
    core = await createTestCore();
    app = await buildServiceApp(core, probe);
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    release();
    await app.close().catch(() => {});
    await core.dispose();
  });

  it('the next request on a connection, sent while the close waits for its request in flight, is served', async () => {
    const { port } = app.server.address() as AddressInfo;
    const client = rawClient(port);
    // A request in flight: the close waits for it, and keeps its connection open meanwhile.
    client.socket.write('GET /slow HTTP/1.1\r\nHost: test\r\n\r\n');
    await until(() => (entered ? true : undefined), 'the slow request running');
    const closed = app.close();
    // The next request on that connection (as a proxy's kept-alive connection would send it) reaches the
    // server after the close began.
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.socket.write('GET /quick HTTP/1.1\r\nHost: test\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await closed;
    await until(
      () => (answers(client.received()).length === 2 || client.socket.closed ? true : undefined),
      'both answers or the connection closed',
    );
    const [first = '', second = '(no second answer)'] = answers(client.received());
    assert.match(first, /^HTTP\/1\.1 200 /, first);
    assert.match(second, /^HTTP\/1\.1 200 /, second);
    assert.match(second, /\r\nconnection: close\r\n/i, second);
    assert.match(second, /\{"quick":true\}$/, second);
  });
});
