import Type, { type Static } from 'typebox';

/** The family's one table from HTTP status to the category in `code` (DESIGN.md section 3). */
export const statusCategories = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
} as const;

export type ErrorStatus = keyof typeof statusCategories;

export const errorItemSchema = Type.Object(
  {
    type: Type.String({ description: 'Specific machine-readable error type, stable once published.' }),
    message: Type.String({ description: 'Human-readable description.' }),
  },
  { $id: 'ErrorItem', xml: { name: 'ErrorItem' } },
);

export const errorBodySchema = Type.Object(
  {
    code: Type.String({ description: 'Category of the HTTP status, e.g. NOT_FOUND.' }),
    message: Type.String({ description: 'Human-readable description.' }),
    errors: Type.Array(errorItemSchema, { xml: { wrapped: true } }),
  },
  { $id: 'Error', xml: { name: 'Error' }, description: 'The error body of the whole family.' },
);

export type ErrorItem = Static<typeof errorItemSchema>;
export type ErrorBody = Static<typeof errorBodySchema>;

/**
 * Base of every error that knows its own HTTP answer. The one error handler renders any of these;
 * everything else is an unexpected fault (500, logged, never described to the client).
 */
export class ProblemError extends Error {
  readonly status: ErrorStatus;
  readonly type: string;
  readonly errors: ErrorItem[];
  readonly headers: Record<string, string>;

  constructor(
    status: ErrorStatus,
    type: string,
    message: string,
    options: { errors?: ErrorItem[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.type = type;
    this.errors = options.errors ?? [{ type, message }];
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { code: statusCategories[this.status], message: this.message, errors: this.errors };
  }
}

type Catalogue = Record<string, readonly [ErrorStatus, string]>;
type ErrorFactory = (
  message?: string,
  options?: { errors?: ErrorItem[]; headers?: Record<string, string>; cause?: unknown },
) => ProblemError;

/**
 * Declares a closed set of error types with their status and default message, and returns one
 * factory per type: `deviceErrors.DEVICE_NOT_FOUND()` or `deviceErrors.DEVICE_NOT_FOUND('…')`.
 */
export function defineErrors<C extends Catalogue>(
  catalogue: C,
): { [K in keyof C]: ErrorFactory } & {
  catalogue: C;
} {
  const factories: Record<string, unknown> = { catalogue };
  for (const [type, [status, fallback]] of Object.entries(catalogue)) {
    factories[type] = (message?: string, options?: Parameters<ErrorFactory>[1]) =>
      new ProblemError(status, type, message ?? fallback, options);
  }
  return factories as { [K in keyof C]: ErrorFactory } & { catalogue: C };
}

/** Error types every service of the family can answer. */
export const commonErrors = defineErrors({
  ROUTE_NOT_FOUND: [404, 'No operation at this path and method.'],
  METHOD_NOT_ALLOWED: [405, 'This method is not allowed on this path.'],
  VALIDATION_ERROR: [400, 'The request is not valid.'],
  MALFORMED_BODY: [400, 'The request body could not be read.'],
  BODY_TOO_LARGE: [413, 'The request body is too large.'],
  PATH_TOO_LONG: [414, 'A path parameter of the request is too long.'],
  MALFORMED_PATH: [400, 'The request path is not valid (bad percent-encoding).'],
  NOT_ACCEPTABLE: [406, 'None of the media types in Accept can be produced.'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'The Content-Type of the body is not supported.'],
  CREDENTIALS_MISSING: [401, 'Credentials are required.'],
  API_KEY_INVALID: [401, 'The API key is unknown or revoked.'],
  TOKEN_INVALID: [401, 'The token is invalid, expired or revoked.'],
  ACCESS_DENIED: [403, 'These credentials may not call this operation.'],
  RATE_LIMITED: [429, 'Too many requests; retry later.'],
  SUBSYSTEM_ERROR: [502, 'A subsystem failed to answer.'],
  INTERNAL_ERROR: [500, 'An unexpected error occurred.'],
  SERVICE_UNAVAILABLE: [503, 'The service is not ready.'],
});

/** The body for a status with one error entry, for places that answer without throwing. */
export function errorBody(status: ErrorStatus, type: string, message: string): ErrorBody {
  return { code: statusCategories[status], message, errors: [{ type, message }] };
}

/** Response schemas of the error body for a route's `response` map. */
export function errorResponses(...statuses: ErrorStatus[]): Record<number, typeof errorBodySchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorBodySchema]));
}
