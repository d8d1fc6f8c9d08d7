import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/core/config.ts';
import { type App, buildServiceApp, type ServiceDefinition } from '../../src/core/http/service-app.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

const probe: ServiceDefinition = {
  name: 'agents',
  async plugin(app) {
    app.post('/echo', async (request) => ({ received: JSON.stringify(request.body).length }));
  },
};

/** The family error body of a raw answer: its code and error types. */
function familyBody(answer: string): { code: unknown; errors: unknown } {
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
    code?: unknown;
    errors?: Array<{ type?: unknown }>;
  };
  return { code: body.code, errors: body.errors?.map((item) => item.type) };
}

const HEADERS_MS = 1500;
const REQUEST_MS = 3000;
const KEEP_ALIVE_MS = 1000;
/**
 * The server looks for expired connections once a second; a loaded machine adds more. Each trickle below
 * would last 80 s: closed within this slack shows the timeout, not the end of the trickle.
 */
const SLACK_MS = 10_000;
/** A connection still open after this long has not been timed out at all. */
const GIVE_UP_MS = 15_000;

interface Closed {
  afterMs: number;
  answer: string;
  /** Pieces written before the server closed the connection. */
  sent: number;
}

/**
 * Opens a connection, writes `head`, then one of `pieces` every `everyMs`; answers when the server closes
 * the connection (or after GIVE_UP_MS), with what it said.
 */
function trickle(port: number, head: string, pieces: readonly string[], everyMs: number): Promise<Closed> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    // Writing into a connection the server has just cut fails with EPIPE or ECONNRESET: that is the point.
    socket.on('error', () => {});
    const drip = setInterval(() => {
      const piece = pieces[sent];
      if (piece !== undefined && socket.writable) {
        socket.write(piece);
        sent += 1;
      }
    }, everyMs);
    const giveUp = setTimeout(() => socket.destroy(), GIVE_UP_MS);
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ afterMs: Date.now() - started, answer, sent });
    });
    socket.write(head);
  });
}

describe('HTTP timeouts: slow senders are cut off, normal requests are not', () => {
  let core: TestCore;
  let app: App;
  let port: number;
  before(async () => {
    core = await createTestCore({
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    });
    app = await buildServiceApp(core, probe);
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app.close();
    await core.dispose();
  });

  it('defaults: headers 20 s, whole request 55 s (both under a minute), keep-alive 72 s', () => {
    const config = loadConfig({});
    assert.equal(config.HTTP_HEADERS_TIMEOUT_MS, 20000);
    assert.equal(config.HTTP_REQUEST_TIMEOUT_MS, 55000);
    assert.equal(config.HTTP_KEEP_ALIVE_TIMEOUT_MS, 72000);
  });

  it('headers sent one byte every 400 ms: 408 and closed within HTTP_HEADERS_TIMEOUT_MS', async () => {
    const closed = await trickle(
      port,
      'GET /healthz HTTP/1.1\r\nHost: probe\r\n',
      [...'X-Slow: '.padEnd(200, 'a')],
      400,
    );
    assert.ok(closed.afterMs < HEADERS_MS + SLACK_MS, `closed after ${closed.afterMs} ms`);
    assert.ok(closed.afterMs >= HEADERS_MS - 100, `not before the timeout: ${closed.afterMs} ms`);
    assert.match(closed.answer, /^HTTP\/1\.1 408 /);
    assert.deepEqual(familyBody(closed.answer), {
      code: 'REQUEST_TIMEOUT',
      errors: ['REQUEST_TIMEOUT'],
    });
  });

  it('what Node refuses before Fastify: not HTTP is 400 MALFORMED_REQUEST, headers over the limit 431, in the family body', async () => {
    const garbled = await trickle(port, 'NOT HTTP AT ALL\r\n\r\n', [], 1000);
    assert.match(garbled.answer, /^HTTP\/1\.1 400 /);
    assert.deepEqual(familyBody(garbled.answer), { code: 'BAD_REQUEST', errors: ['MALFORMED_REQUEST'] });
    const huge = await trickle(
      port,
      `GET /healthz HTTP/1.1\r\nHost: probe\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      [],
      1000,
    );
    assert.match(huge.answer, /^HTTP\/1\.1 431 /);
    assert.deepEqual(familyBody(huge.answer), {
      code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      errors: ['HEADERS_TOO_LARGE'],
    });
  });

  it('a body sent one byte every 400 ms: 408 and closed within HTTP_REQUEST_TIMEOUT_MS', async () => {
    const head =
      'POST /echo HTTP/1.1\r\nHost: probe\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n';
    const closed = await trickle(port, head, [...`{"a":"${'a'.repeat(192)}"}`], 400);
    assert.ok(closed.afterMs < REQUEST_MS + SLACK_MS, `closed after ${closed.afterMs} ms`);
    assert.ok(
      closed.afterMs >= REQUEST_MS - 100,
      `after the headers' bound, at the request's: ${closed.afterMs} ms`,
    );
    assert.ok(closed.sent < 200, 'cut off before the body was complete');
    assert.match(closed.answer, /^HTTP\/1\.1 408 /);
  });

  it('a normal request, and a body sent in pieces that ends within the bound, are answered', async () => {
    const quick = await fetch(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 'b' }),
    });
    assert.equal(quick.status, 200);
    assert.deepEqual(await quick.json(), { received: 9 });

    const body = `{"a":"${'a'.repeat(992)}"}`;
    const pieces = [body.slice(0, 250), body.slice(250, 500), body.slice(500, 750), body.slice(750)];
    const head = `POST /echo HTTP/1.1\r\nHost: probe\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // Four pieces 400 ms apart: 1.6 s, past the headers' bound but within the request's.
    const slow = await trickle(port, head, pieces, 400);
    assert.match(slow.answer, /^HTTP\/1\.1 200 /);
    assert.match(slow.answer, /\{"received":1000\}$/);
  });

  it('an idle kept-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const closed = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: probe\r\n\r\n', [], 1000);
    assert.match(closed.answer, /^HTTP\/1\.1 200 /);
    assert.match(closed.answer, /keep-alive: timeout=1\r\n/i);
    assert.ok(closed.afterMs < KEEP_ALIVE_MS + SLACK_MS, `closed after ${closed.afterMs} ms`);
  });
});
