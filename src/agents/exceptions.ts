import { type ErrorItem, type ErrorSpec, httpErrors, ProblemError } from '../core/errors.ts';
import { agentErrors, responseErrors } from './errors.ts';

/**
 * The agents server's exceptions: the module agent code imports. Each class takes its status, default
 * message and default error_code from its catalogue entry (`errors.ts`); the error_code is
 * `errors[0].type` of the response body.
 */

export interface AgentExceptionOptions {
  /** Overrides the class's default error code. */
  error_code?: string;
  /** The underlying failure: logged, never sent. */
  cause?: unknown;
}

export interface ExternalServiceFields extends AgentExceptionOptions {
  /** The upstream's own error code, added to the message as `(<code>)`. */
  service_error_code?: string;
  /** Which upstream failed, added to the message as `Service: <name>`. */
  service_name?: string;
}

export interface RateLimitFields extends ExternalServiceFields {
  /** Seconds (or an HTTP date) the client should wait: becomes the Retry-After header. */
  retry_after: string;
}

export interface ExecutionFields extends AgentExceptionOptions {
  /** More about what failed; appended to the message. */
  detail?: string;
}

type AnyFields = Partial<RateLimitFields & ExecutionFields>;

/** The contract's join: `<message> (<service_error_code>) Service: <service_name>`, each part only when given. */
export function joinAgentMessage(message: string, fields: AnyFields = {}): string {
  const parts = [message];
  if (fields.detail) parts.push(fields.detail);
  if (fields.service_error_code) parts.push(`(${fields.service_error_code})`);
  if (fields.service_name) parts.push(`Service: ${fields.service_name}`);
  return parts.join(' ');
}

/** Base of every agent exception; also what anything unhandled becomes (500 AGENT_ERROR). */
export class AgentBaseException extends ProblemError {
  /** The catalogue entry a subclass raises: its status, default message and default error_code. */
  static readonly spec: ErrorSpec = agentErrors.AGENT_ERROR;

  constructor(message?: string, options: AgentExceptionOptions = {}) {
    const { status, type, message: fallback } = (new.target as typeof AgentBaseException).spec;
    const fields: AnyFields = options;
    super(status, options.error_code ?? type, joinAgentMessage(message ?? fallback, fields), {
      cause: options.cause,
      headers: fields.retry_after === undefined ? {} : { 'retry-after': fields.retry_after },
    });
  }

  /** The contract's name for the type of the error. */
  get error_code(): string {
    return this.type;
  }
}

export class AgentNotFoundException extends AgentBaseException {
  static override readonly spec = agentErrors.AGENT_NOT_FOUND;
}

export class AgentConfigException extends AgentBaseException {
  static override readonly spec = agentErrors.AGENT_CONFIG_ERROR;
}

export class AgentValidationException extends AgentBaseException {
  static override readonly spec = agentErrors.AGENT_VALIDATION_ERROR;
}

export class AgentExecutionException extends AgentBaseException {
  static override readonly spec = agentErrors.AGENT_EXECUTION_ERROR;
  readonly detail: string;

  constructor(message?: string, options: ExecutionFields = {}) {
    super(message, options);
    this.detail = options.detail ?? '';
  }
}

export class AgentExternalServiceException extends AgentBaseException {
  static override readonly spec = agentErrors.AGENT_EXTERNAL_SERVICE_ERROR;
  readonly service_error_code: string;
  readonly service_name: string;

  constructor(message?: string, options: ExternalServiceFields = {}) {
    super(message, options);
    this.service_error_code = options.service_error_code ?? '';
    this.service_name = options.service_name ?? '';
  }
}

export class AgentModelError extends AgentExternalServiceException {
  static override readonly spec = agentErrors.AGENT_MODEL_ERROR;
}

export class AgentRateLimitError extends AgentExternalServiceException {
  static override readonly spec = agentErrors.AGENT_RATE_LIMIT_ERROR;
  readonly retry_after: string;

  constructor(message: string | undefined, options: RateLimitFields) {
    super(message, options);
    this.retry_after = options.retry_after;
  }
}

/** Base of the web framework's validation exceptions: 400, one entry per failing field. */
export abstract class FrameworkValidationError extends ProblemError {
  static readonly spec: ErrorSpec = httpErrors.VALIDATION_ERROR;

  constructor(items: ErrorItem[]) {
    const { status, type, message } = (new.target as typeof FrameworkValidationError).spec;
    super(status, type, items.map((item) => item.message).join('; ') || message, { errors: items });
  }
}

/** A path, query or header parameter failed its schema. */
export class ValidationException extends FrameworkValidationError {}

/** The request body failed its schema. */
export class RequestValidationError extends FrameworkValidationError {}

interface SchemaFailure {
  instancePath: string;
  message: string;
  params?: unknown;
}

/** What an agent answered does not match the response schema (400, like the other two). */
export class ResponseValidationError extends FrameworkValidationError {
  static override readonly spec = responseErrors.RESPONSE_VALIDATION_ERROR;

  constructor(failures: Iterable<SchemaFailure>) {
    super(responseItems(failures));
  }
}

/** TypeBox reports missing properties together; the family lists one entry per field. */
function responseItems(failures: Iterable<SchemaFailure>): ErrorItem[] {
  const { type } = responseErrors.RESPONSE_VALIDATION_ERROR;
  return [...failures].flatMap((failure) => {
    const params = (failure.params ?? {}) as { requiredProperties?: unknown };
    const missing = Array.isArray(params.requiredProperties) ? params.requiredProperties : [];
    if (missing.length > 0) {
      return missing.map((name) => ({
        type,
        message: `response${failure.instancePath}/${String(name)} is required`,
      }));
    }
    return [{ type, message: `response${failure.instancePath} ${failure.message}` }];
  });
}
