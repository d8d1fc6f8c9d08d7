import type { FastifyError } from 'fastify';
import { type ErrorItem, ProblemError } from '../core/errors.ts';
import {
  type ErrorManager,
  type ProblemTranslation,
  toProblem,
  validationItems,
} from '../core/http/error-handler.ts';
import { AgentBaseException } from './exceptions.ts';

/** AgentErrorManager: an agent exception already knows its status, body and Retry-After. */
export const agentErrorManager: ErrorManager = (error) =>
  error instanceof AgentBaseException ? { problem: error, unexpected: false } : undefined;

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

/** The framework error manager: request and response validation failures become 400. */
export const frameworkErrorManager: ErrorManager = (error) => {
  if (error instanceof FrameworkValidationError) return { problem: error, unexpected: false };
  const fastifyError = error as Partial<FastifyError>;
  if (!Array.isArray(fastifyError.validation)) return undefined;
  const context = fastifyError.validationContext ?? 'request';
  const items = validationItems(context, fastifyError.validation);
  const problem = context === 'body' ? new RequestValidationError(items) : new ValidationException(items);
  return { problem, unexpected: false };
};

/** The family's own errors (auth, malformed body…) pass; anything else is AgentBaseException's 500. */
export const unhandledErrorManager: ErrorManager = (error) => {
  const translation = toProblem(error);
  return translation.unexpected ? { problem: new AgentBaseException(), unexpected: true } : translation;
};

/** The agents server's managers, in the order they are asked. */
export const agentErrorManagers: readonly ErrorManager[] = [
  agentErrorManager,
  frameworkErrorManager,
  unhandledErrorManager,
];

/** What the error handler would answer for this error; the SSE `error` event uses it too. */
export function translateAgentError(error: unknown): ProblemTranslation {
  for (const manager of agentErrorManagers) {
    const translation = manager(error);
    if (translation) return translation;
  }
  return { problem: new AgentBaseException(), unexpected: true };
}
