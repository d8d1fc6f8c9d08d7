import Type, { type Static } from 'typebox';

/** The family's one table from HTTP status to the category in `code`. */
export const statusCategories = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
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

/** Response headers an error type always carries; the API documents list them with the type. */
export type ErrorHeader = 'retry-after' | 'www-authenticate' | 'allow';

/** One entry of an error catalogue: everything the documents and the error handler need to know. */
export interface ErrorSpec {
  readonly type: string;
  readonly status: ErrorStatus;
  /** The default message; a throw site may say more. */
  readonly message: string;
  readonly headers: readonly ErrorHeader[];
  /** The catalogue it belongs to, `service/domain` (e.g. `client-api/devices`, `family/auth`). */
  readonly domain: string;
}

export interface ProblemOptions {
  /** The entries of `errors[]`; one entry of the type and message when omitted. */
  errors?: ErrorItem[];
  headers?: Record<string, string>;
  /** The underlying failure: logged, never sent. */
  cause?: unknown;
}

/**
 * Every error that knows its own HTTP answer. The error handler renders any of these; everything else
 * is an unexpected fault (500, logged, never described to the client).
 */
export class ProblemError extends Error {
  readonly status: ErrorStatus;
  readonly type: string;
  readonly errors: ErrorItem[];
  readonly headers: Record<string, string>;

  constructor(status: ErrorStatus, type: string, message: string, options: ProblemOptions = {}) {
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

/** A catalogue entry that is also its factory: `deviceErrors.DEVICE_NOT_FOUND('…')` throws-ready. */
export type ErrorFactory = ErrorSpec & ((message?: string, options?: ProblemOptions) => ProblemError);

type CatalogueEntry = readonly [ErrorStatus, string] | readonly [ErrorStatus, string, readonly ErrorHeader[]];

/** Every entry defined so far, by `service:type`: one type has one meaning within a service. */
const defined = new Map<string, ErrorSpec>();

/** Every error type the loaded catalogues define, for checks and documents. */
export function definedErrors(): readonly ErrorSpec[] {
  return [...defined.values()];
}

/**
 * Declares one domain's closed set of error types with their status, default message and the headers
 * they always carry. `domain` is `service/domain`; the `family` service's types are every service's.
 * Defining a type twice within a service (or a family type again) fails at load, naming both places.
 */
export function defineErrors<C extends Record<string, CatalogueEntry>>(
  domain: string,
  catalogue: C,
): { readonly [K in keyof C]: ErrorFactory } {
  const service = domain.split('/')[0] ?? domain;
  const factories: Record<string, ErrorFactory> = {};
  for (const [type, [status, fallback, headers = []]] of Object.entries(catalogue)) {
    for (const scope of new Set([service, 'family'])) {
      const earlier = defined.get(`${scope}:${type}`);
      if (earlier !== undefined) {
        throw new Error(`Error type ${type} is defined twice: in ${earlier.domain} and in ${domain}.`);
      }
    }
    const spec: ErrorSpec = { type, status, message: fallback, headers, domain };
    defined.set(`${service}:${type}`, spec);
    const factory = (message?: string, options?: ProblemOptions) =>
      new ProblemError(status, type, message ?? fallback, options);
    factories[type] = Object.assign(factory, spec);
  }
  return factories as { readonly [K in keyof C]: ErrorFactory };
}

/** What every service answers about the request itself, before or around its operation. */
export const httpErrors = defineErrors('family/http', {
  ROUTE_NOT_FOUND: [404, 'No operation at this path and method.'],
  METHOD_NOT_ALLOWED: [405, 'This method is not allowed on this path.', ['allow']],
  VALIDATION_ERROR: [400, 'The request is not valid.'],
  REQUEST_TIMEOUT: [408, 'The request did not arrive in time; the connection is closed.'],
  HEADERS_TOO_LARGE: [431, 'The request headers are too large.'],
  MALFORMED_REQUEST: [400, 'The request could not be read as HTTP.'],
  MALFORMED_BODY: [400, 'The request body could not be read.'],
  BODY_TOO_LARGE: [413, 'The request body is too large.'],
  PATH_TOO_LONG: [414, 'A path parameter of the request is too long.'],
  MALFORMED_PATH: [400, 'The request path is not valid (bad percent-encoding).'],
  NOT_ACCEPTABLE: [406, 'None of the media types in Accept can be produced.'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'The Content-Type of the body is not supported.'],
  RATE_LIMITED: [429, 'Too many requests; retry later.', ['retry-after']],
  INTERNAL_ERROR: [500, 'An unexpected error occurred.'],
  SERVICE_UNAVAILABLE: [503, 'The service is not ready.'],
  STORE_UNAVAILABLE: [503, 'The database cannot be reached right now; retry shortly.', ['retry-after']],
  SHUTTING_DOWN: [503, 'The service is shutting down; send this request to another instance.'],
});

/** Who is calling and whether they may: credentials and access, the same in every service. */
export const authErrors = defineErrors('family/auth', {
  CREDENTIALS_MISSING: [401, 'Credentials are required.'],
  API_KEY_INVALID: [401, 'The API key is unknown or revoked.'],
  TOKEN_INVALID: [401, 'The token is invalid, expired or revoked.'],
  ACCESS_DENIED: [403, 'These credentials may not call this operation.'],
});

/** A subsystem the family calls over HTTP (campaigns, ads, subscriptions, channels, keys) failed. */
export const subsystemErrors = defineErrors('family/subsystems', {
  SUBSYSTEM_ERROR: [502, 'A subsystem failed to answer.'],
});

/** The body for a status with one error entry, for places that answer without throwing. */
export function errorBody(status: ErrorStatus, type: string, message: string): ErrorBody {
  return { code: statusCategories[status], message, errors: [{ type, message }] };
}
