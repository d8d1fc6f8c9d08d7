import { type ErrorStatus, ProblemError } from '../core/errors.ts';

/**
 * SPEC area C's agent exceptions: the module agent code imports. Each has a status, a default message
 * and a default error_code (SPEC's table); the error_code is `errors[0].type` of the response body.
 */

interface AgentExceptionDefaults {
  status: ErrorStatus;
  message: string;
  errorCode: string;
}

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

/** DESIGN.md's join: `<message> (<service_error_code>) Service: <service_name>`, each part only when given. */
export function joinAgentMessage(message: string, fields: AnyFields = {}): string {
  const parts = [message];
  if (fields.detail) parts.push(fields.detail);
  if (fields.service_error_code) parts.push(`(${fields.service_error_code})`);
  if (fields.service_name) parts.push(`Service: ${fields.service_name}`);
  return parts.join(' ');
}

/** Base of every agent exception; also what anything unhandled becomes (500 AGENT_ERROR). */
export class AgentBaseException extends ProblemError {
  static readonly defaults: AgentExceptionDefaults = {
    status: 500,
    message: 'An agent error occurred.',
    errorCode: 'AGENT_ERROR',
  };

  constructor(message?: string, options: AgentExceptionOptions = {}) {
    const defaults = (new.target as typeof AgentBaseException).defaults;
    const fields: AnyFields = options;
    super(
      defaults.status,
      options.error_code ?? defaults.errorCode,
      joinAgentMessage(message ?? defaults.message, fields),
      {
        cause: options.cause,
        headers: fields.retry_after === undefined ? {} : { 'retry-after': fields.retry_after },
      },
    );
  }

  /** SPEC's name for the type of the error. */
  get error_code(): string {
    return this.type;
  }
}

export class AgentNotFoundException extends AgentBaseException {
  static override readonly defaults: AgentExceptionDefaults = {
    status: 404,
    message: 'Agent not found.',
    errorCode: 'AGENT_NOT_FOUND',
  };
}

export class AgentConfigException extends AgentBaseException {
  static override readonly defaults: AgentExceptionDefaults = {
    status: 400,
    message: 'Agent configuration error.',
    errorCode: 'AGENT_CONFIG_ERROR',
  };
}

export class AgentValidationException extends AgentBaseException {
  static override readonly defaults: AgentExceptionDefaults = {
    status: 400,
    message: 'Agent validation failed.',
    errorCode: 'AGENT_VALIDATION_ERROR',
  };
}

export class AgentExecutionException extends AgentBaseException {
  static override readonly defaults: AgentExceptionDefaults = {
    status: 500,
    message: 'Agent execution failed.',
    errorCode: 'AGENT_EXECUTION_ERROR',
  };
  readonly detail: string;

  constructor(message?: string, options: ExecutionFields = {}) {
    super(message, options);
    this.detail = options.detail ?? '';
  }
}

export class AgentExternalServiceException extends AgentBaseException {
  static override readonly defaults: AgentExceptionDefaults = {
    status: 502,
    message: 'External service error.',
    errorCode: 'AGENT_EXTERNAL_SERVICE_ERROR',
  };
  readonly service_error_code: string;
  readonly service_name: string;

  constructor(message?: string, options: ExternalServiceFields = {}) {
    super(message, options);
    this.service_error_code = options.service_error_code ?? '';
    this.service_name = options.service_name ?? '';
  }
}

export class AgentModelError extends AgentExternalServiceException {
  static override readonly defaults: AgentExceptionDefaults = {
    status: 502,
    message: 'Model error.',
    errorCode: 'AGENT_MODEL_ERROR',
  };
}

export class AgentRateLimitError extends AgentExternalServiceException {
  static override readonly defaults: AgentExceptionDefaults = {
    status: 429,
    message: 'Rate limit error.',
    errorCode: 'AGENT_RATE_LIMIT_ERROR',
  };
  readonly retry_after: string;

  constructor(message: string | undefined, options: RateLimitFields) {
    super(message, options);
    this.retry_after = options.retry_after;
  }
}
