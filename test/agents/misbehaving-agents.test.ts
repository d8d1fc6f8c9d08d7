import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Agent } from '../../src/agents/agent.ts';
import { AgentExecutionException } from '../../src/agents/exceptions.ts';
import { agentsPlugin, agentsService } from '../../src/agents/service.ts';
import { type App, buildServiceApp } from '../../src/core/http/service-app.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { parseEvents } from './helpers/sse.ts';

describe('agents routes with agents that misbehave', () => {
  let core: TestCore;
  let app: App;
  let headers: Record<string, string>;
  const liar: Agent = {
    name: 'liar',
    description: 'Answers something that is not text.',
    configured: () => true,
    invoke: async () => ({ output: 42 as unknown as string }),
  };
  const plain: Agent = {
    name: 'plain',
    description: 'Answers in one piece.',
    configured: () => true,
    invoke: async () => ({ output: 'The whole answer.' }),
  };
  const flaky: Agent = {
    name: 'flaky',
    description: 'Fails after its first chunk.',
    configured: () => true,
    invoke: async () => ({ output: 'whole' }),
    async *stream() {
      yield 'Partial ';
      throw new AgentExecutionException(undefined, { detail: 'The guide tool failed.' });
    },
  };
  const broken: Agent = {
    name: 'broken',
    description: 'Throws a plain error mid-stream.',
    configured: () => true,
    invoke: async () => {
      throw new TypeError('cannot read properties of undefined (secret)');
    },
    async *stream() {
      yield 'Partial ';
      throw new TypeError('cannot read properties of undefined (secret)');
    },
  };
  before(async () => {
    core = await createTestCore();
    // The agents server's own composition root, over these agents instead of the real ones.
    app = await buildServiceApp(core, {
      ...agentsService,
      plugin: agentsPlugin(() => [liar, plain, flaky, broken]),
    });
    await app.ready();
    headers = { 'x-api-key': (await core.apiKeys.create('backoffice', 'misbehaving')).key };
  });
  after(async () => {
    await app.close();
    await core.dispose();
  });

  describe('happy', () => {
    it('streams an agent without a stream method as one chunk', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/agents/plain/stream',
        headers,
        payload: { input: 'hi', conversationId: 'p-1' },
      });
      assert.deepEqual(parseEvents(response.body), [
        // An agent that does not say how to show its answer is shown as plain text.
        { event: 'chunk', data: { text: 'The whole answer.', textFormat: 'plain' } },
        {
          event: 'done',
          data: { agent: 'plain', output: 'The whole answer.', textFormat: 'plain', conversationId: 'p-1' },
        },
      ]);
    });
  });

  describe('errors', () => {
    it('answers a response that fails its schema with 400 RESPONSE_VALIDATION_ERROR (ResponseValidationError)', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/agents/liar/invoke',
        headers,
        payload: { input: 'hi' },
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json().errors, [
        { type: 'RESPONSE_VALIDATION_ERROR', message: 'response/output must be string' },
      ]);
    });

    it('sends a failure after the stream began as an error event with the family body', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/agents/flaky/stream',
        headers,
        payload: { input: 'hi' },
      });
      assert.equal(response.statusCode, 200);
      const events = parseEvents(response.body);
      assert.deepEqual(events, [
        { event: 'chunk', data: { text: 'Partial ', textFormat: 'plain' } },
        {
          event: 'error',
          data: {
            code: 'INTERNAL_ERROR',
            message: 'Agent execution failed. The guide tool failed.',
            errors: [
              { type: 'AGENT_EXECUTION_ERROR', message: 'Agent execution failed. The guide tool failed.' },
            ],
          },
        },
      ]);
    });
  });

  describe('security', () => {
    it('turns an unexpected error into AGENT_ERROR, in a response or an error event, never its text', async () => {
      const invoke = await app.inject({
        method: 'POST',
        url: '/agents/broken/invoke',
        headers,
        payload: { input: 'hi' },
      });
      assert.equal(invoke.statusCode, 500);
      assert.equal(invoke.json().errors[0].type, 'AGENT_ERROR');
      assert.doesNotMatch(invoke.body, /secret/);
      const stream = await app.inject({
        method: 'POST',
        url: '/agents/broken/stream',
        headers,
        payload: { input: 'hi' },
      });
      const events = parseEvents(stream.body);
      assert.equal(events.at(-1)?.event, 'error');
      assert.deepEqual(events.at(-1)?.data, {
        code: 'INTERNAL_ERROR',
        message: 'An agent error occurred.',
        errors: [{ type: 'AGENT_ERROR', message: 'An agent error occurred.' }],
      });
      assert.doesNotMatch(stream.body, /secret/);
    });
  });
});
