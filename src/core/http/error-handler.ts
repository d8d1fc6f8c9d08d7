import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { commonErrors, type ErrorItem, type ErrorStatus, ProblemError, statusCategories } from '../errors.ts';

/** Fastify's own errors, by status, as the family's error types. */
const frameworkTypes: Partial<Record<number, keyof typeof commonErrors.catalogue>> = {
  400: 'MALFORMED_BODY',
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  413: 'BODY_TOO_LARGE',
  414: 'PATH_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/** Fastify's errors whose status alone does not say what went wrong, by their code. */
const frameworkCodes: Partial<Record<string, keyof typeof commonErrors.catalogue>> = {
  FST_ERR_BAD_URL: 'MALFORMED_PATH',
};

interface ValidationFailure {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** One entry per failing field: `body/name must NOT have more than 64 characters`. */
export function validationItems(context: string, failures: ValidationFailure[]): ErrorItem[] {
  return failures.map((failure) => {
    const missing = failure.params?.missingProperty;
    const path = `${context}${failure.instancePath ?? ''}${typeof missing === 'string' ? `/${missing}` : ''}`;
    const allowed = failure.params?.allowedValues;
    const suffix = Array.isArray(allowed) ? ` (${allowed.join(', ')})` : '';
    return { type: 'VALIDATION_ERROR', message: `${path} ${failure.message ?? 'is not valid'}${suffix}` };
  });
}

/** Turns whatever was thrown into a ProblemError; an unexpected fault becomes a bare 500. */
export function toProblem(error: unknown): { problem: ProblemError; unexpected: boolean } {
  if (error instanceof ProblemError) return { problem: error, unexpected: false };
  const fastifyError = error as Partial<FastifyError>;
  if (Array.isArray(fastifyError.validation)) {
    const errors = validationItems(fastifyError.validationContext ?? 'request', fastifyError.validation);
    const problem = commonErrors.VALIDATION_ERROR(errors.map((item) => item.message).join('; '), { errors });
    return { problem, unexpected: false };
  }
  const status = fastifyError.statusCode;
  const type =
    (fastifyError.code === undefined ? undefined : frameworkCodes[fastifyError.code]) ??
    (status === undefined ? undefined : frameworkTypes[status]);
  if (type) return { problem: commonErrors[type](), unexpected: false };
  if (status !== undefined && status >= 400 && status < 500 && status in statusCategories) {
    const problem = new ProblemError(
      status as ErrorStatus,
      'BAD_REQUEST',
      'The request could not be handled.',
    );
    return { problem, unexpected: false };
  }
  return { problem: commonErrors.INTERNAL_ERROR(), unexpected: true };
}

export interface ProblemTranslation {
  problem: ProblemError;
  /** An unexpected fault: logged with its stack at error level; its details never reach the client. */
  unexpected: boolean;
}

/** A service's own translation of what was thrown; undefined passes the error to the next one. */
export type ErrorManager = (error: unknown) => ProblemTranslation | undefined;

const errorManagers = new WeakMap<FastifyInstance, ErrorManager[]>();

/**
 * Lets a service translate errors its own way (area C's error managers) before the family default;
 * the first manager that answers wins. Call with the app given to the service's `register`.
 */
export function addErrorManagers(app: FastifyInstance, ...managers: ErrorManager[]): void {
  errorManagers.set(app, [...(errorManagers.get(app) ?? []), ...managers]);
}

function translate(app: FastifyInstance, error: unknown): ProblemTranslation {
  for (const manager of errorManagers.get(app) ?? []) {
    const translation = manager(error);
    if (translation) return translation;
  }
  return toProblem(error);
}

export function sendProblem(reply: FastifyReply, problem: ProblemError): FastifyReply {
  return reply.code(problem.status).headers(problem.headers).send(problem.toBody());
}

/**
 * Fastify's `frameworkErrors` option: what the router refuses before any route or hook runs (a path
 * parameter over `maxParamLength`, bad percent-encoding) answered in the family body instead of
 * Fastify's own. No hook runs for these, so the request id header is set here.
 */
export function answerFrameworkError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const { problem, unexpected } = toProblem(error);
  if (unexpected) request.log.error({ err: error }, 'unexpected error');
  return sendProblem(reply.header('x-request-id', request.id), problem);
}

/** The one error handler and not-found handler of every service of the family. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { problem, unexpected } = translate(app, error);
    if (unexpected) request.log.error({ err: error }, 'unexpected error');
    else if (problem.status >= 500) request.log.warn({ err: error }, problem.message);
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      commonErrors.ROUTE_NOT_FOUND(`No operation at ${request.method} ${request.url.split('?')[0]}.`),
    ),
  );
}
