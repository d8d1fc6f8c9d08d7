import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { createTestApp } from '../helpers/harness.ts';
import { MODEL_KEY, suiteChatApp, TIMEOUT_MS } from './helpers/chat-app.ts';
import { completion } from './helpers/model-server.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('chat agent over an OpenAI-compatible endpoint: invoke', () => {
  const chat = suiteChatApp();

  const invoke = (input = 'What is on tonight?') =>
    chat.app.inject({
      method: 'POST',
      url: '/agents/chat/invoke',
      headers: chat.headers,
      payload: { input, conversationId: 'c-1' },
    });

  /** The upstream's words and our key must never reach our client. */
  function assertNothingLeaked(body: string) {
    assert.doesNotMatch(body, /sk-test|upstream-secret|never-shown/);
  }

  describe('happy', () => {
    it('is listed as configured', async () => {
      const response = await chat.app.inject({ method: 'GET', url: '/agents/chat', headers: chat.headers });
      assert.equal(response.json().configured, true);
    });

    it('asks the model with our key and answers its text', async () => {
      chat.model.handle((_request, response) => {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(completion('Tonight: the derby at 21:00.'));
      });
      const response = await invoke();
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        agent: 'chat',
        output: 'Tonight: the derby at 21:00.',
        // An anonymous turn quotes nothing anyone else controls: the model's markdown is kept.
        textFormat: 'markdown',
        conversationId: 'c-1',
        model: 'test-model-2026',
      });
      const sent = chat.model.requests.at(-1);
      assert.equal(sent?.headers.authorization, `Bearer ${MODEL_KEY}`);
      assert.equal(sent?.body.model, 'test-model');
      assert.equal(sent?.body.stream, false);
      assert.deepEqual(
        sent?.body.messages?.map((message) => message.role),
        ['system', 'user'],
      );
      assert.equal(sent?.body.messages?.[1]?.content, 'What is on tonight?');
    });
  });

  describe('errors', () => {
    it('upstream 429 with Retry-After: 7 → 429, Retry-After: 7, AGENT_RATE_LIMIT_ERROR', async () => {
      chat.model.handle((_request, response) => {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end(
          JSON.stringify({
            error: { code: 'rate_limit_exceeded', message: 'upstream-secret for sk-test' },
          }),
        );
      });
      const response = await invoke();
      assert.equal(response.statusCode, 429);
      assert.equal(response.headers['retry-after'], '7');
      const body = response.json();
      assert.equal(body.code, 'TOO_MANY_REQUESTS');
      assert.equal(body.errors[0].type, 'AGENT_RATE_LIMIT_ERROR');
      assert.equal(
        body.message,
        `The model endpoint is rate limiting requests. (rate_limit_exceeded) Service: ${chat.model.host}`,
      );
      assertNothingLeaked(response.body);
    });

    it('upstream 429 with retry-after-ms → Retry-After in whole seconds', async () => {
      chat.model.handle((_request, response) => {
        response.writeHead(429, { 'retry-after-ms': '2500' }).end();
      });
      const response = await invoke();
      assert.equal(response.statusCode, 429);
      assert.equal(response.headers['retry-after'], '3');
      assert.equal(response.json().errors[0].type, 'AGENT_RATE_LIMIT_ERROR');
    });

    it('upstream 429 insufficient_quota → 502 AGENT_MODEL_ERROR, not a retry', async () => {
      chat.model.handle((_request, response) => {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(
          JSON.stringify({
            error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'upstream-secret' },
          }),
        );
      });
      const response = await invoke();
      assert.equal(response.statusCode, 502);
      assert.equal(response.headers['retry-after'], undefined);
      assert.equal(response.json().errors[0].type, 'AGENT_MODEL_ERROR');
      assert.match(response.json().message, /\(insufficient_quota\) Service: /);
      assertNothingLeaked(response.body);
    });

    it('upstream 500 → 502 AGENT_MODEL_ERROR naming the service', async () => {
      chat.model.handle((_request, response) => {
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { type: 'server_error', message: 'upstream-secret stack' } }));
      });
      const response = await invoke();
      assert.equal(response.statusCode, 502);
      const message = `The model endpoint answered 500. (server_error) Service: ${chat.model.host}`;
      assert.deepEqual(response.json(), {
        code: 'BAD_GATEWAY',
        message,
        errors: [{ type: 'AGENT_MODEL_ERROR', message }],
      });
      assertNothingLeaked(response.body);
    });

    it('upstream 401 (our key refused) and a body-less 503 → 502 AGENT_MODEL_ERROR', async () => {
      chat.model.handle((_request, response) => {
        response
          .writeHead(401)
          .end(JSON.stringify({ error: { code: 'invalid_api_key', message: 'sk-test…' } }));
      });
      let response = await invoke();
      assert.equal(response.statusCode, 502);
      assert.match(response.json().message, /\(invalid_api_key\)/);
      assertNothingLeaked(response.body);
      chat.model.handle((_request, res) => res.writeHead(503).end('<html>upstream-secret</html>'));
      response = await invoke();
      assert.equal(response.statusCode, 502);
      assert.equal(response.json().errors[0].type, 'AGENT_MODEL_ERROR');
      assert.match(response.json().message, /\(http_503\)/);
      assertNothingLeaked(response.body);
    });

    it('upstream 200 without message content → 502 AGENT_MODEL_ERROR invalid_response', async () => {
      chat.model.handle((_request, response) => response.writeHead(200).end('{"choices":[]}'));
      const response = await invoke();
      assert.equal(response.statusCode, 502);
      assert.equal(response.json().errors[0].type, 'AGENT_MODEL_ERROR');
      assert.match(response.json().message, /\(invalid_response\)/);
    });

    it('an upstream that never answers → 502 AGENT_EXTERNAL_SERVICE_ERROR within the timeout', async () => {
      chat.model.handle(() => {});
      const started = Date.now();
      const response = await invoke();
      const elapsed = Date.now() - started;
      assert.equal(response.statusCode, 502);
      const message = `The model endpoint did not answer within ${TIMEOUT_MS} ms. Service: ${chat.model.host}`;
      assert.deepEqual(response.json(), {
        code: 'BAD_GATEWAY',
        message,
        errors: [{ type: 'AGENT_EXTERNAL_SERVICE_ERROR', message }],
      });
      // It waited the whole timeout, and the timeout (not a socket's minutes-long one) ended it; the upper
      // bound is loose for a busy machine.
      assert.ok(elapsed >= TIMEOUT_MS - 20 && elapsed < TIMEOUT_MS + 10_000, `took ${elapsed} ms`);
    });
  });
});

describe('chat agent with an endpoint that refuses connections', () => {
  describe('errors', () => {
    it('answers 502 AGENT_EXTERNAL_SERVICE_ERROR naming the service', async () => {
      const port = await closedPort();
      const test = await createTestApp('agents', { MODEL_BASE_URL: `http://127.0.0.1:${port}/v1` });
      try {
        const key = (await test.core.apiKeys.create('runtime', 'refused')).key;
        const response = await test.app.inject({
          method: 'POST',
          url: '/agents/chat/invoke',
          headers: { 'x-api-key': key },
          payload: { input: 'hi' },
        });
        assert.equal(response.statusCode, 502);
        const message = `The model endpoint could not be reached. (ECONNREFUSED) Service: 127.0.0.1:${port}`;
        assert.deepEqual(response.json(), {
          code: 'BAD_GATEWAY',
          message,
          errors: [{ type: 'AGENT_EXTERNAL_SERVICE_ERROR', message }],
        });
      } finally {
        await test.close();
      }
    });
  });
});
