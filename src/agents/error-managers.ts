import { type ErrorItem, ProblemError } from '../core/errors.ts';
import { type ProblemPolicy, type ProblemTranslation, toProblem } from '../core/http/error-handler.ts';
import { AgentBaseException } from './exceptions.ts';

/** Base of the web framework's validation exceptions (SPEC area C): 400, one entry per failing field. */
export abstract class FrameworkValidationError extends ProblemError {
  constructor(type: string, items: ErrorItem[]) {
    super(400, type, items.map((item) => item.message).join('; ') || 'The request is not valid.', {
      errors: items,
    });
  }
}

/** A path, query or header parameter failed its schema. */
export class ValidationException extends FrameworkValidationError {
  constructor(items: ErrorItem[]) {
    super('VALIDATION_ERROR', items);
  }
}

/** The request body failed its schema. */
export class RequestValidationError extends FrameworkValidationError {
  constructor(items: ErrorItem[]) {
    super('VALIDATION_ERROR', items);
  }
}

interface SchemaFailure {
  instancePath: string;
  message: string;
  params?: unknown;
}

/** What an agent answered does not match the response schema (SPEC: 400, like the others). */
export class ResponseValidationError extends FrameworkValidationError {
  constructor(failures: Iterable<SchemaFailure>) {
    super('RESPONSE_VALIDATION_ERROR', responseItems(failures));
  }
}

/** TypeBox reports missing properties together; the family lists one entry per field. */
function responseItems(failures: Iterable<SchemaFailure>): ErrorItem[] {
  return [...failures].flatMap((failure) => {
    const params = (failure.params ?? {}) as { requiredProperties?: unknown };
    const missing = Array.isArray(params.requiredProperties) ? params.requiredProperties : [];
    if (missing.length > 0) {
      return missing.map((name) => ({
        type: 'RESPONSE_VALIDATION_ERROR',
        message: `response${failure.instancePath}/${String(name)} is required`,
      }));
    }
    return [
      { type: 'RESPONSE_VALIDATION_ERROR', message: `response${failure.instancePath} ${failure.message}` },
    ];
  });
}

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
