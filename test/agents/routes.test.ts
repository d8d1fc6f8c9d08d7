import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suiteApp } from '../helpers/harness.ts';
import { postAgent } from './helpers/post-agent.ts';
import { parseEvents } from './helpers/sse.ts';

describe('agents routes', () => {
  const agents = suiteApp('agents', 'runtime');

  describe('GET /agents and GET /agents/{name}', () => {
    describe('happy', () => {
      it('lists the agents, the unconfigured chat agent included', async () => {
        const response = await agents.app.inject({ method: 'GET', url: '/agents', headers: agents.headers });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(
          response
            .json()
            .agents.map((agent: { name: string; configured: boolean; streaming: boolean }) => [
              agent.name,
              agent.configured,
              agent.streaming,
            ]),
          [
            ['assistant', true, true],
            ['chat', false, true],
          ],
        );
      });

      it('reads one agent', async () => {
        const response = await agents.app.inject({
          method: 'GET',
          url: '/agents/assistant',
          headers: agents.headers,
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().name, 'assistant');
        assert.equal(response.json().configured, true);
      });
    });

    describe('errors', () => {
      it('answers an unknown agent with 404 AGENT_NOT_FOUND, on every route', async () => {
        for (const [method, url] of [
          ['GET', '/agents/ghost'],
          ['POST', '/agents/ghost/invoke'],
          ['POST', '/agents/ghost/stream'],
        ] as const) {
          const response = await agents.app.inject({
            method,
            url,
            headers: agents.headers,
            payload: method === 'POST' ? { input: 'hi' } : undefined,
          });
          assert.equal(response.statusCode, 404, url);
          assert.deepEqual(response.json(), {
            code: 'NOT_FOUND',
            message: 'No agent is named ghost.',
            errors: [{ type: 'AGENT_NOT_FOUND', message: 'No agent is named ghost.' }],
          });
        }
      });

      it('rejects a malformed agent name with 400 VALIDATION_ERROR', async () => {
        const response = await agents.app.inject({
          method: 'GET',
          url: '/agents/bad%20name',
          headers: agents.headers,
        });
        assert.equal(response.statusCode, 400);
        assert.equal(response.json().errors[0].type, 'VALIDATION_ERROR');
        assert.match(response.json().errors[0].message, /^params\/name/);
      });
    });
  });

  describe('POST /agents/{name}/invoke', () => {
    describe('happy', () => {
      it('invokes the assistant: JSON in, JSON out, conversationId echoed', async () => {
        const response = await postAgent(agents, '/agents/assistant/invoke', {
          input: '¿Cómo grabo una serie?',
          conversationId: 'conv-1',
        });
        assert.equal(response.statusCode, 200);
        const body = response.json();
        assert.equal(body.agent, 'assistant');
        assert.equal(body.conversationId, 'conv-1');
        assert.match(body.output, /Grabar serie/);
      });
    });

    describe('errors', () => {
      it('lists both bad fields of an invoke body', async () => {
        const response = await postAgent(agents, '/agents/assistant/invoke', {
          input: '',
          conversationId: 'not a valid id!',
        });
        assert.equal(response.statusCode, 400);
        const body = response.json();
        assert.equal(body.code, 'BAD_REQUEST');
        assert.equal(body.errors.length, 2);
        assert.deepEqual(
          body.errors.map((item: { type: string; message: string }) => [
            item.type,
            item.message.split(' ')[0],
          ]),
          [
            ['VALIDATION_ERROR', 'body/input'],
            ['VALIDATION_ERROR', 'body/conversationId'],
          ],
        );
      });

      it('lists a missing input and a wrong type together', async () => {
        const response = await postAgent(agents, '/agents/assistant/invoke', {
          conversationId: { nested: true },
        });
        assert.equal(response.statusCode, 400);
        assert.deepEqual(
          response.json().errors.map((item: { message: string }) => item.message.split(' ')[0]),
          ['body/input', 'body/conversationId'],
        );
      });

      it('answers an oversize body with 413 and a body that is not JSON with 415', async () => {
        const large = await postAgent(agents, '/agents/assistant/invoke', { input: 'x'.repeat(70_000) });
        assert.equal(large.statusCode, 413);
        assert.equal(large.json().errors[0].type, 'BODY_TOO_LARGE');
        const text = await agents.app.inject({
          method: 'POST',
          url: '/agents/assistant/invoke',
          headers: { ...agents.headers, 'content-type': 'application/xml' },
          payload: '<input>hello</input>',
        });
        assert.equal(text.statusCode, 415);
        assert.equal(text.json().errors[0].type, 'UNSUPPORTED_MEDIA_TYPE');
      });

      it('answers a whitespace-only input with 400 AGENT_VALIDATION_ERROR from the agent', async () => {
        const response = await postAgent(agents, '/agents/assistant/invoke', { input: '   ' });
        assert.equal(response.statusCode, 400);
        assert.equal(response.json().errors[0].type, 'AGENT_VALIDATION_ERROR');
      });

      it('answers the chat agent without MODEL_BASE_URL with 400 AGENT_CONFIG_ERROR saying what to set', async () => {
        for (const url of ['/agents/chat/invoke', '/agents/chat/stream']) {
          const response = await agents.app.inject({
            method: 'POST',
            url,
            headers: agents.headers,
            payload: { input: 'hi' },
          });
          assert.equal(response.statusCode, 400, url);
          assert.match(String(response.headers['content-type']), /^application\/json/);
          assert.equal(response.json().errors[0].type, 'AGENT_CONFIG_ERROR');
          assert.match(response.json().message, /MODEL_BASE_URL/);
        }
      });
    });
  });

  describe('POST /agents/{name}/stream', () => {
    describe('happy', () => {
      it('streams the assistant as chunk events then a done event', async () => {
        const response = await agents.app.inject({
          method: 'POST',
          url: '/agents/assistant/stream',
          headers: { ...agents.headers, 'x-request-id': 'sse-1' },
          payload: { input: 'hello', conversationId: 'c-9' },
        });
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^text\/event-stream/);
        assert.equal(response.headers['cache-control'], 'no-cache, no-transform');
        assert.equal(response.headers['x-request-id'], 'sse-1');
        const events = parseEvents(response.body);
        const chunks = events.filter((event) => event.event === 'chunk');
        assert.ok(chunks.length > 3);
        const last = events.at(-1);
        assert.equal(last?.event, 'done');
        const done = last?.data as { agent: string; output: string; conversationId: string };
        assert.equal(done.agent, 'assistant');
        assert.equal(done.conversationId, 'c-9');
        assert.equal(done.output, chunks.map((chunk) => (chunk.data as { text: string }).text).join(''));
        assert.match(done.output, /^Hello!/);
      });
    });
  });
});
