import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { suiteChatApp, TIMEOUT_MS } from './helpers/chat-app.ts';
import { streamChunk } from './helpers/model-server.ts';
import { postAgent } from './helpers/post-agent.ts';
import { parseEvents } from './helpers/sse.ts';

describe('chat agent over an OpenAI-compatible endpoint: stream', () => {
  const chat = suiteChatApp();

  describe('happy', () => {
    it('streams the model’s chunks, then done', async () => {
      chat.model.handle((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(streamChunk('Tonight'));
        response.write(streamChunk(': the derby.'));
        response.end('data: [DONE]\n\n');
      });
      const response = await postAgent(chat, '/agents/chat/stream', { input: 'What is on?' });
      assert.equal(response.statusCode, 200);
      assert.equal(chat.model.requests.at(-1)?.body.stream, true);
      assert.deepEqual(parseEvents(response.body), [
        { event: 'chunk', data: { text: 'Tonight', textFormat: 'markdown' } },
        { event: 'chunk', data: { text: ': the derby.', textFormat: 'markdown' } },
        { event: 'done', data: { agent: 'chat', output: 'Tonight: the derby.', textFormat: 'markdown' } },
      ]);
    });
  });

  describe('errors', () => {
    it('a stream refused before it began is a plain 429 with Retry-After', async () => {
      chat.model.handle((_request, response) => response.writeHead(429, { 'retry-after': '7' }).end());
      const response = await postAgent(chat, '/agents/chat/stream', { input: 'hi' });
      assert.equal(response.statusCode, 429);
      assert.equal(response.headers['retry-after'], '7');
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.json().errors[0].type, 'AGENT_RATE_LIMIT_ERROR');
    });

    it('an upstream that breaks off mid-stream → error event AGENT_EXTERNAL_SERVICE_ERROR', async () => {
      chat.model.handle((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(streamChunk('Tonight'), () => setTimeout(() => response.destroy(), 20));
      });
      const response = await postAgent(chat, '/agents/chat/stream', { input: 'hi' });
      const events = parseEvents(response.body);
      assert.deepEqual(events[0], { event: 'chunk', data: { text: 'Tonight', textFormat: 'markdown' } });
      assert.equal(events.length, 2);
      const error = events[1];
      assert.equal(error?.event, 'error');
      const body = error?.data as { code: string; message: string; errors: Array<{ type: string }> };
      assert.equal(body.code, 'BAD_GATEWAY');
      assert.equal(body.errors[0]?.type, 'AGENT_EXTERNAL_SERVICE_ERROR');
      assert.match(body.message, /^The model endpoint broke off its answer\./);
    });

    it('an upstream silent mid-stream for longer than the timeout → error event', async () => {
      chat.model.handle((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(streamChunk('Tonight'));
      });
      const response = await postAgent(chat, '/agents/chat/stream', { input: 'hi' });
      const events = parseEvents(response.body);
      assert.equal(events.at(-1)?.event, 'error');
      assert.match(
        (events.at(-1)?.data as { message?: string } | undefined)?.message ?? '',
        new RegExp(`did not answer within ${TIMEOUT_MS} ms`),
      );
    });
  });
});

/**
 * A model timeout far beyond how long the hang-up tests wait, so the model call they see end was cancelled
 * by the hang-up, however busy the machine.
 */
const CANCEL_TIMEOUT_MS = 60_000;
const CANCEL_BOUND_MS = 10_000;

describe('chat agent over an OpenAI-compatible endpoint: a client that hangs up', () => {
  const chat = suiteChatApp(CANCEL_TIMEOUT_MS);

  /** Sends a request over real HTTP and hangs up once `hangUpWhen` resolves. */
  function callAndHangUp(path: string, hangUpWhen: Promise<unknown>) {
    const target = new URL(path, chat.url);
    const request = httpRequest(target, {
      method: 'POST',
      headers: { ...chat.headers, 'content-type': 'application/json' },
    });
    request.on('error', () => {});
    request.end(JSON.stringify({ input: 'What is on?' }));
    void hangUpWhen.then(() => request.destroy());
  }

  describe('errors', () => {
    it('a client that hangs up on invoke cancels the model call', async () => {
      chat.model.handle(() => {});
      const arrived = chat.model.nextRequest();
      callAndHangUp('/agents/chat/invoke', arrived);
      const upstream = await arrived;
      const cancelled = await Promise.race([
        upstream.aborted.then(() => true),
        new Promise<false>((resolve) => setTimeout(resolve, CANCEL_BOUND_MS, false).unref()),
      ]);
      assert.ok(cancelled, 'cancelled, not timed out');
    });

    it('a client that hangs up on a stream cancels the model call', async () => {
      chat.model.handle((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // Text forever, so no timeout ends the call: only a cancellation can.
        const more = setInterval(() => response.write(streamChunk('.')), 20);
        response.on('close', () => clearInterval(more));
      });
      const arrived = chat.model.nextRequest();
      callAndHangUp(
        '/agents/chat/stream',
        arrived.then(() => new Promise((resolve) => setTimeout(resolve, 100))),
      );
      await (await arrived).aborted;
    });
  });
});
