import { type ProblemPolicy, type ProblemTranslation, toProblem } from '../core/http/error-handler.ts';
import { AgentBaseException, RequestValidationError, ValidationException } from './exceptions.ts';

/**
 * How the agents server answers: agent exceptions render themselves (they are problems with their own
 * status, type and Retry-After); a failed request check is the web framework's ValidationException or,
 * for the body, RequestValidationError; anything unexpected is AgentBaseException's 500.
 */
export const agentProblemPolicy: ProblemPolicy = {
  validation: (context, items) =>
    context === 'body' ? new RequestValidationError(items) : new ValidationException(items),
  unexpected: () => new AgentBaseException(),
};

/** What the error handler answers for this error; the SSE `error` event uses it too. */
export function translateAgentError(error: unknown): ProblemTranslation {
  return toProblem(error, agentProblemPolicy);
}
