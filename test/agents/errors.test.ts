import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Type from 'typebox';
import { agentProblemPolicy } from '../../src/agents/error-policy.ts';
import * as exceptions from '../../src/agents/exceptions.ts';
import { problemHandler } from '../../src/core/http/error-handler.ts';
import { withErrors } from '../../src/core/http/route-errors.ts';
import { type App, buildServiceApp, type ServiceDefinition, typed } from '../../src/core/http/service-app.ts';
import { capturingLogger, createTestCore, type TestCore } from '../helpers/harness.ts';

const raisers: Record<string, () => Error> = {
  base: () => new exceptions.AgentBaseException(),
  'not-found': () => new exceptions.AgentNotFoundException('No agent is named ghost.'),
  config: () => new exceptions.AgentConfigException(),
  validation: () => new exceptions.AgentValidationException('The input is empty.'),
  execution: () => new exceptions.AgentExecutionException(undefined, { detail: 'The guide tool failed.' }),
  external: () =>
    new exceptions.AgentExternalServiceException('Search failed.', {
      service_error_code: 'E503',
      service_name: 'search',
    }),
  model: () =>
    new exceptions.AgentModelError(undefined, {
      service_error_code: 'server_error',
      service_name: 'api.example',
    }),
  'rate-limit': () =>
    new exceptions.AgentRateLimitError('Too fast.', {
      retry_after: '7',
      service_error_code: 'rate_limit_exceeded',
      service_name: 'api.example',
    }),
  custom: () => new exceptions.AgentConfigException('Missing tool.', { error_code: 'AGENT_TOOL_MISSING' }),
  unexpected: () => new Error('SELECT secret FROM internals'),
};

/** A service whose routes raise each exception, with the agents server's error policy. */
const probe: ServiceDefinition = {
  name: 'agents',
  async plugin(instance) {
    const app = typed(instance);
    app.setErrorHandler(problemHandler(agentProblemPolicy));
    app.get(
      '/raise/:which',
      { schema: { params: Type.Object({ which: Type.String() }) } },
      async (request) => {
        const raise = raisers[request.params.which];
        throw raise ? raise() : new Error('unknown raiser');
      },
    );
    app.post(
      '/validate',
      {
        schema: withErrors(
          {
            querystring: Type.Object({ limit: Type.Optional(Type.Integer({ maximum: 10 })) }),
            body: Type.Object({ input: Type.String({ minLength: 1 }), count: Type.Integer() }),
            response: { 200: Type.Object({ ok: Type.Boolean() }) },
          },
          [],
        ),
      },
      async () => ({ ok: true }),
    );
  },
};

describe('agents error contract over HTTP', () => {
  let core: TestCore;
  let app: App;
  let logs: Array<Record<string, unknown>> = [];
  before(async () => {
    core = await createTestCore();
    // The same core with a logger the test can read.
    const captured = capturingLogger();
    logs = captured.lines;
    app = await buildServiceApp({ ...core, logger: captured.logger }, probe);
    await app.ready();
  });
  after(async () => {
    await app.close();
    await core.dispose();
  });

  const expected: Array<[string, number, string, string, string, Record<string, string>]> = [
    ['base', 500, 'INTERNAL_ERROR', 'AGENT_ERROR', 'An agent error occurred.', {}],
    ['not-found', 404, 'NOT_FOUND', 'AGENT_NOT_FOUND', 'No agent is named ghost.', {}],
    ['config', 400, 'BAD_REQUEST', 'AGENT_CONFIG_ERROR', 'Agent configuration error.', {}],
    ['validation', 400, 'BAD_REQUEST', 'AGENT_VALIDATION_ERROR', 'The input is empty.', {}],
    [
      'execution',
      500,
      'INTERNAL_ERROR',
      'AGENT_EXECUTION_ERROR',
      'Agent execution failed. The guide tool failed.',
      {},
    ],
    [
      'external',
      502,
      'BAD_GATEWAY',
      'AGENT_EXTERNAL_SERVICE_ERROR',
      'Search failed. (E503) Service: search',
      {},
    ],
    [
      'model',
      502,
      'BAD_GATEWAY',
      'AGENT_MODEL_ERROR',
      'Model error. (server_error) Service: api.example',
      {},
    ],
    [
      'rate-limit',
      429,
      'TOO_MANY_REQUESTS',
      'AGENT_RATE_LIMIT_ERROR',
      'Too fast. (rate_limit_exceeded) Service: api.example',
      { 'retry-after': '7' },
    ],
    ['custom', 400, 'BAD_REQUEST', 'AGENT_TOOL_MISSING', 'Missing tool.', {}],
  ];

  describe('errors', () => {
    for (const [which, status, code, type, message, headers] of expected) {
      it(`${which}: ${status} ${type}`, async () => {
        const response = await app.inject({
          method: 'GET',
          url: `/raise/${which}`,
          headers: { 'x-request-id': `r-${which}` },
        });
        assert.equal(response.statusCode, status);
        assert.match(String(response.headers['content-type']), /^application\/json/);
        assert.equal(response.headers['x-request-id'], `r-${which}`);
        assert.equal(response.headers['retry-after'], headers['retry-after']);
        assert.deepEqual(response.json(), { code, message, errors: [{ type, message }] });
      });
    }

    it('anything else: 500 AGENT_ERROR, nothing of it sent, logged with its stack and request id', async () => {
      const response = await app.inject({
        method: 'GET',
        url: '/raise/unexpected',
        headers: { 'x-request-id': 'boom-1' },
      });
      assert.equal(response.statusCode, 500);
      assert.equal(response.headers['retry-after'], undefined);
      assert.deepEqual(response.json(), {
        code: 'INTERNAL_ERROR',
        message: 'An agent error occurred.',
        errors: [{ type: 'AGENT_ERROR', message: 'An agent error occurred.' }],
      });
      assert.doesNotMatch(response.body, /SELECT|secret|internals/);
      const line = logs.find((entry) => entry.requestId === 'boom-1' && entry.level === 50);
      assert.ok(line, 'an error line carries the request id');
      const err = line.err as { message: string; stack: string };
      assert.equal(err.message, 'SELECT secret FROM internals');
      assert.match(err.stack, /errors\.test\.ts/);
    });

    it('request body validation (RequestValidationError): 400 with one entry per failing field', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/validate',
        payload: { input: '', count: 'many' },
      });
      assert.equal(response.statusCode, 400);
      const body = response.json();
      assert.equal(body.code, 'BAD_REQUEST');
      assert.deepEqual(
        body.errors.map((item: { type: string; message: string }) => [item.type, item.message.split(' ')[0]]),
        [
          ['VALIDATION_ERROR', 'body/input'],
          ['VALIDATION_ERROR', 'body/count'],
        ],
      );
    });

    it('query validation (ValidationException): 400 VALIDATION_ERROR naming the parameter', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/validate?limit=99',
        payload: { input: 'x', count: 1 },
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json().errors, [
        { type: 'VALIDATION_ERROR', message: 'querystring/limit must be <= 10' },
      ]);
    });

    it('the family’s own errors stay theirs (malformed JSON is 400 MALFORMED_BODY, not AGENT_ERROR)', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/validate',
        headers: { 'content-type': 'application/json' },
        payload: '{"input":',
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().errors[0].type, 'MALFORMED_BODY');
    });
  });
});
