import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable } from '../db/unavailable.ts';
import {
  type ErrorFactory,
  type ErrorItem,
  type ErrorStatus,
  httpErrors,
  ProblemError,
  statusCategories,
} from '../errors.ts';
import type {} from './challenges.ts';
import { unmatchedRoute } from './route-methods.ts';

/** What a client is told to wait when the store cannot be reached: a lost connection is replaced at once. */
const STORE_RETRY_AFTER_SECONDS = 1;

/** Fastify's own errors, by status, as the family's error types. */
const frameworkTypes: Partial<Record<number, ErrorFactory>> = {
  400: httpErrors.MALFORMED_BODY,
  404: httpErrors.ROUTE_NOT_FOUND,
  405: httpErrors.METHOD_NOT_ALLOWED,
  406: httpErrors.NOT_ACCEPTABLE,
  413: httpErrors.BODY_TOO_LARGE,
  414: httpErrors.PATH_TOO_LONG,
  415: httpErrors.UNSUPPORTED_MEDIA_TYPE,
  429: httpErrors.RATE_LIMITED,
};

/** Fastify's errors whose status alone does not say what went wrong, by their code. */
const frameworkCodes: Partial<Record<string, ErrorFactory>> = {
  FST_ERR_BAD_URL: httpErrors.MALFORMED_PATH,
};

interface ValidationFailure {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Keywords whose failure only repeats what their branches said. */
const COMBINATORS = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'then', 'else']);

function failurePath(context: string, failure: ValidationFailure): string {
  const missing = failure.params?.missingProperty;
  return `${context}${failure.instancePath ?? ''}${typeof missing === 'string' ? `/${missing}` : ''}`;
}

/**
 * The one message kept for a field. A check other than the type (a length, a pattern) means the value
 * had a type some branch takes: that check is the news. Otherwise the types it may have (`must be
 * string or null`).
 */
function clearest(failures: ValidationFailure[]): string {
  const direct = failures.filter((failure) => !COMBINATORS.has(failure.keyword ?? ''));
  const candidates = direct.length > 0 ? direct : failures;
  const other = candidates.find((failure) => failure.keyword !== 'type');
  if (other === undefined) {
    const types = candidates
      .map((failure) => failure.params?.type)
      .filter((type) => typeof type === 'string');
    if (types.length > 0) return `must be ${[...new Set(types)].join(' or ')}`;
  }
  const chosen = other ?? candidates[0];
  const allowed = chosen?.params?.allowedValues;
  const suffix = Array.isArray(allowed) ? ` (${allowed.join(', ')})` : '';
  return `${chosen?.message ?? 'is not valid'}${suffix}`;
}

/**
 * One entry per failing field, in the order ajv met them: `body/name must NOT have more than 64
 * characters`. A field that fails several ways (every branch of a union, a type and a length) is
 * listed once, with its clearest message.
 */
export function validationItems(context: string, failures: ValidationFailure[]): ErrorItem[] {
  const byPath = new Map<string, ValidationFailure[]>();
  for (const failure of failures) {
    const path = failurePath(context, failure);
    const list = byPath.get(path);
    if (list === undefined) byPath.set(path, [failure]);
    else list.push(failure);
  }
  return [...byPath].map(([path, list]) => ({
    type: 'VALIDATION_ERROR',
    message: `${path} ${clearest(list)}`,
  }));
}

/** How one service answers what the family's defaults do not: its validation and its unexpected faults. */
export interface ProblemPolicy {
  /** The answer to a failed schema check (`context`: body, params, querystring, headers). */
  validation(context: string, items: ErrorItem[]): ProblemError;
  /** The answer to an unexpected fault; its details are logged, never sent. */
  unexpected(): ProblemError;
}

export const familyPolicy: ProblemPolicy = {
  validation: (_context, items) =>
    httpErrors.VALIDATION_ERROR(items.map((item) => item.message).join('; '), { errors: items }),
  unexpected: () => httpErrors.INTERNAL_ERROR(),
};

export interface ProblemTranslation {
  problem: ProblemError;
  /** An unexpected fault: logged with its stack at error level; its details never reach the client. */
  unexpected: boolean;
}

/** Turns whatever was thrown into the answer the client gets. */
export function toProblem(error: unknown, policy: ProblemPolicy = familyPolicy): ProblemTranslation {
  if (error instanceof ProblemError) return { problem: error, unexpected: false };
  // Anything may be thrown, undefined included.
  const fastifyError = (typeof error === 'object' && error !== null ? error : {}) as Partial<FastifyError>;
  if (Array.isArray(fastifyError.validation)) {
    const context = fastifyError.validationContext ?? 'request';
    return {
      problem: policy.validation(context, validationItems(context, fastifyError.validation)),
      unexpected: false,
    };
  }
  const status = fastifyError.statusCode;
  const factory =
    (fastifyError.code === undefined ? undefined : frameworkCodes[fastifyError.code]) ??
    (status === undefined ? undefined : frameworkTypes[status]);
  if (factory) return { problem: factory(), unexpected: false };
  if (status !== undefined && status >= 400 && status < 500 && status in statusCategories) {
    const problem = new ProblemError(
      status as ErrorStatus,
      'BAD_REQUEST',
      'The request could not be handled.',
    );
    return { problem, unexpected: false };
  }
  if (isStoreUnavailable(error)) {
    const problem = httpErrors.STORE_UNAVAILABLE(undefined, {
      headers: { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) },
    });
    return { problem, unexpected: false };
  }
  return { problem: policy.unexpected(), unexpected: true };
}

const problemType = Symbol('problem type');
type Answered = FastifyReply & { [problemType]?: string };

/**
 * Sends the family body. A 401 carries the challenge its operation's declared security implies
 * (challenges.ts), so no refusal can name another scheme than the document does.
 */
export function sendProblem(reply: FastifyReply, problem: ProblemError): FastifyReply {
  (reply as Answered)[problemType] = problem.type;
  reply.code(problem.status).headers(problem.headers);
  const challenge = problem.status === 401 ? reply.request.server.authChallenge?.(reply.request) : undefined;
  if (challenge !== undefined) reply.header('www-authenticate', challenge);
  return reply.send(problem.toBody());
}

/** The type of the family error body the reply was answered with (its first `errors[].type`), if any. */
export function problemTypeOf(reply: FastifyReply): string | undefined {
  return (reply as Answered)[problemType];
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

/**
 * What Fastify refuses while reading a body (or, for QUERY, its missing Content-Type). No route takes
 * such a request, so its path and method answer (404 or 405), never the body it did or did not send.
 */
function isBodyRefusal(error: unknown): boolean {
  const code = (error as Partial<FastifyError>).code;
  return (
    code !== undefined && (code.startsWith('FST_ERR_CTP_') || code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE')
  );
}

/**
 * An error handler for `setErrorHandler`: the family's by default; a service that answers its own way
 * sets one with its policy on its own scope.
 */
export function problemHandler(policy: ProblemPolicy = familyPolicy) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (request.is404 && isBodyRefusal(error)) return sendProblem(reply, unmatchedRoute(request));
    const { problem, unexpected } = toProblem(error, policy);
    if (unexpected) request.log.error({ err: error }, 'unexpected error');
    else if (problem.status >= 500) request.log.warn({ err: error }, problem.message);
    return sendProblem(reply, problem);
  };
}

/** The answer to a request no route takes: 405 with `Allow` on a known path, 404 otherwise. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(reply, unmatchedRoute(request));
}
