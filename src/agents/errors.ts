import { defineErrors } from '../core/errors.ts';

/**
 * The agents server's error contract: the types agent code raises (through the classes of
 * `exceptions.ts`), each with its status and default message. `error_code` is the type.
 */
export const agentErrors = defineErrors('agents/agents', {
  AGENT_ERROR: [500, 'An agent error occurred.'],
  AGENT_NOT_FOUND: [404, 'Agent not found.'],
  AGENT_CONFIG_ERROR: [400, 'Agent configuration error.'],
  AGENT_VALIDATION_ERROR: [400, 'Agent validation failed.'],
  AGENT_EXECUTION_ERROR: [500, 'Agent execution failed.'],
  AGENT_EXTERNAL_SERVICE_ERROR: [502, 'External service error.'],
  AGENT_MODEL_ERROR: [502, 'Model error.'],
  AGENT_RATE_LIMIT_ERROR: [429, 'Rate limit error.', ['retry-after']],
});

/** The web framework's own: what an agent answered does not match the response schema. */
export const responseErrors = defineErrors('agents/responses', {
  RESPONSE_VALIDATION_ERROR: [400, 'The response is not valid.'],
});
