import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { translateAgentError } from '../../../src/agents/error-policy.ts';
import { agentErrors, responseErrors } from '../../../src/agents/errors.ts';
import {
  AgentBaseException,
  AgentConfigException,
  AgentExecutionException,
  AgentExternalServiceException,
  AgentModelError,
  AgentNotFoundException,
  AgentRateLimitError,
  AgentValidationException,
  joinAgentMessage,
  RequestValidationError,
  ResponseValidationError,
  ValidationException,
} from '../../../src/agents/exceptions.ts';
import { httpErrors } from '../../../src/core/errors.ts';

describe('agent exceptions (the agents server’s error contract)', () => {
  const table = [
    [new AgentBaseException(), 500, 'INTERNAL_ERROR', 'An agent error occurred.', 'AGENT_ERROR'],
    [new AgentNotFoundException(), 404, 'NOT_FOUND', 'Agent not found.', 'AGENT_NOT_FOUND'],
    [new AgentConfigException(), 400, 'BAD_REQUEST', 'Agent configuration error.', 'AGENT_CONFIG_ERROR'],
    [
      new AgentValidationException(),
      400,
      'BAD_REQUEST',
      'Agent validation failed.',
      'AGENT_VALIDATION_ERROR',
    ],
    [
      new AgentExecutionException(),
      500,
      'INTERNAL_ERROR',
      'Agent execution failed.',
      'AGENT_EXECUTION_ERROR',
    ],
    [
      new AgentExternalServiceException(),
      502,
      'BAD_GATEWAY',
      'External service error.',
      'AGENT_EXTERNAL_SERVICE_ERROR',
    ],
    [new AgentModelError(), 502, 'BAD_GATEWAY', 'Model error.', 'AGENT_MODEL_ERROR'],
    [
      new AgentRateLimitError(undefined, { retry_after: '30' }),
      429,
      'TOO_MANY_REQUESTS',
      'Rate limit error.',
      'AGENT_RATE_LIMIT_ERROR',
    ],
  ] as const;

  for (const [error, status, code, message, errorCode] of table) {
    it(`${error.name}: ${status} ${errorCode} with its default message`, () => {
      assert.equal(error.status, status);
      assert.equal(error.error_code, errorCode);
      assert.ok(error instanceof AgentBaseException);
      assert.deepEqual(error.toBody(), { code, message, errors: [{ type: errorCode, message }] });
      assert.deepEqual(translateAgentError(error), { problem: error, unexpected: false });
    });
  }

  it('takes a message and an error_code instead of the defaults', () => {
    const error = new AgentNotFoundException('No agent is named x.', { error_code: 'NO_SUCH_AGENT' });
    assert.deepEqual(error.toBody(), {
      code: 'NOT_FOUND',
      message: 'No agent is named x.',
      errors: [{ type: 'NO_SUCH_AGENT', message: 'No agent is named x.' }],
    });
  });

  it('joins service_error_code and service_name into the message, each only when given', () => {
    assert.equal(
      new AgentModelError('The model failed.', {
        service_error_code: 'server_error',
        service_name: 'api.example',
      }).message,
      'The model failed. (server_error) Service: api.example',
    );
    assert.equal(
      new AgentExternalServiceException(undefined, { service_name: 'search' }).message,
      'External service error. Service: search',
    );
    assert.equal(
      new AgentExternalServiceException(undefined, { service_error_code: 'E42' }).message,
      'External service error. (E42)',
    );
    assert.equal(joinAgentMessage('Plain.'), 'Plain.');
  });

  it('keeps the extra fields, empty by default', () => {
    const external = new AgentExternalServiceException();
    assert.equal(external.service_error_code, '');
    assert.equal(external.service_name, '');
    const model = new AgentModelError(undefined, { service_error_code: 'c', service_name: 's' });
    assert.equal(model.service_error_code, 'c');
    assert.equal(model.service_name, 's');
    assert.equal(new AgentExecutionException().detail, '');
  });

  it('adds detail to the execution message', () => {
    const error = new AgentExecutionException(undefined, { detail: 'The guide tool timed out.' });
    assert.equal(error.detail, 'The guide tool timed out.');
    assert.equal(error.message, 'Agent execution failed. The guide tool timed out.');
  });

  it('turns retry_after into the Retry-After header, and only the rate-limit error has one', () => {
    const error = new AgentRateLimitError('Slow down.', {
      retry_after: '7',
      service_error_code: 'rate_limit_exceeded',
      service_name: 'api.example',
    });
    assert.deepEqual(error.headers, { 'retry-after': '7' });
    assert.equal(error.retry_after, '7');
    assert.equal(error.message, 'Slow down. (rate_limit_exceeded) Service: api.example');
    assert.deepEqual(new AgentModelError().headers, {});
  });

  it('turns anything else into the 500 of AgentBaseException, flagged unexpected', () => {
    const { problem, unexpected } = translateAgentError(new Error('SELECT secret FROM keys'));
    assert.equal(unexpected, true);
    assert.deepEqual(problem.toBody(), {
      code: 'INTERNAL_ERROR',
      message: 'An agent error occurred.',
      errors: [{ type: 'AGENT_ERROR', message: 'An agent error occurred.' }],
    });
  });

  it('takes status, default message and error_code from its catalogue entry, one class per entry', () => {
    const classes = [
      AgentBaseException,
      AgentNotFoundException,
      AgentConfigException,
      AgentValidationException,
      AgentExecutionException,
      AgentExternalServiceException,
      AgentModelError,
      AgentRateLimitError,
    ];
    assert.deepEqual(
      classes.map((exception) => exception.spec),
      Object.values(agentErrors),
    );
    for (const exception of classes) {
      const error: AgentBaseException = Reflect.construct(exception, [undefined, { retry_after: '1' }]);
      assert.deepEqual(
        [error.status, error.type, error.message],
        [exception.spec.status, exception.spec.type, exception.spec.message],
      );
    }
    assert.deepEqual(agentErrors.AGENT_RATE_LIMIT_ERROR.headers, ['retry-after']);
  });

  it('the web framework’s exceptions: 400, one entry per failing field, typed by their entry', () => {
    const items = [{ type: 'VALIDATION_ERROR', message: 'params/name must match pattern' }];
    for (const error of [new ValidationException(items), new RequestValidationError(items)]) {
      assert.equal(error.status, httpErrors.VALIDATION_ERROR.status);
      assert.deepEqual(error.toBody(), {
        code: 'BAD_REQUEST',
        message: 'params/name must match pattern',
        errors: items,
      });
    }
    const response = new ResponseValidationError([
      {
        instancePath: '',
        message: 'must have required properties',
        params: { requiredProperties: ['agent', 'output'] },
      },
    ]);
    assert.equal(response.status, responseErrors.RESPONSE_VALIDATION_ERROR.status);
    assert.deepEqual(response.errors, [
      { type: 'RESPONSE_VALIDATION_ERROR', message: 'response/agent is required' },
      { type: 'RESPONSE_VALIDATION_ERROR', message: 'response/output is required' },
    ]);
    assert.equal(new ValidationException([]).message, httpErrors.VALIDATION_ERROR.message);
  });
});
