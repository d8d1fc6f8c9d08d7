import { type ErrorHeader, type ErrorSpec, type ErrorStatus, httpErrors } from '../errors.ts';

/** How each header an error type carries is documented on its response. */
const documentedHeaders: Record<ErrorHeader, { name: string; type: string; description: string }> = {
  'retry-after': { name: 'Retry-After', type: 'integer', description: 'Seconds until a retry may pass.' },
  'www-authenticate': {
    name: 'WWW-Authenticate',
    type: 'string',
    description:
      'The challenge of the credentials the operation takes: `Bearer realm="…"` (with `error="invalid_token"` when a token was sent), `Basic realm="…"`, an API key under its security scheme’s name (`ApiKey realm="…"`), or `Form realm="…"` for a user name and password in a sign-in form’s body.',
  },
  allow: { name: 'Allow', type: 'string', description: 'The methods this path has.' },
};

/** The parts of a route schema that decide which errors the request itself may cause. */
export interface RouteSchema {
  params?: unknown;
  querystring?: unknown;
  headers?: unknown;
  body?: unknown;
  response?: Record<number | string, unknown>;
  /** Whatever else a Fastify or OpenAPI schema holds (summary, tags, security…). */
  [keyword: string]: unknown;
}

/** Errors a route answers because of what it reads, without naming them: validation and the body. */
export function inputErrors(schema: RouteSchema): ErrorSpec[] {
  const errors: ErrorSpec[] = [];
  if (schema.params || schema.querystring || schema.headers || schema.body) {
    errors.push(httpErrors.VALIDATION_ERROR);
  }
  if (schema.body) {
    errors.push(httpErrors.MALFORMED_BODY, httpErrors.BODY_TOO_LARGE, httpErrors.UNSUPPORTED_MEDIA_TYPE);
  }
  return errors;
}

/** The error types by status, each once, in the order first named. */
export function errorTypesByStatus(errors: readonly ErrorSpec[]): Map<ErrorStatus, ErrorSpec[]> {
  const byStatus = new Map<ErrorStatus, ErrorSpec[]>();
  for (const spec of [...errors].sort((a, b) => a.status - b.status)) {
    const specs = byStatus.get(spec.status) ?? [];
    if (!specs.some((known) => known.type === spec.type)) specs.push(spec);
    byStatus.set(spec.status, specs);
  }
  return byStatus;
}

/**
 * One response per error status, each the family's error body described by the types it may carry
 * and the headers they always carry; plus `x-error-types`, the same list as data.
 */
export function errorResponses(errors: readonly ErrorSpec[]): {
  response: Record<number, unknown>;
  'x-error-types': Record<string, string[]>;
} {
  const response: Record<number, unknown> = {};
  const types: Record<string, string[]> = {};
  for (const [status, specs] of errorTypesByStatus(errors)) {
    types[status] = specs.map((spec) => spec.type);
    // Every 401 carries a challenge (error-handler.ts), whichever type it is.
    const challenge: ErrorHeader[] = status === 401 ? ['www-authenticate'] : [];
    const headers = [...new Set([...specs.flatMap((spec) => spec.headers), ...challenge])].map(
      (header) => documentedHeaders[header],
    );
    response[status] = {
      $ref: 'Error#',
      description: specs.map((spec) => spec.type).join(', '),
      ...(headers.length > 0
        ? {
            headers: Object.fromEntries(
              headers.map(({ name, type, description }) => [name, { type, description }]),
            ),
          }
        : {}),
    };
  }
  return { response, 'x-error-types': types };
}

/**
 * A route schema whose error responses derive from the catalogue entries the route may raise, plus the
 * input errors its schema implies and STORE_UNAVAILABLE. The type is the given schema's: the error
 * responses are for the document and the serialiser, the handler's own answers stay typed by the success
 * responses.
 */
export function withErrors<S extends RouteSchema>(schema: S, errors: readonly ErrorSpec[]): S {
  // Any operation may find the store unreachable for a moment (error-handler.ts answers it 503).
  const derived = errorResponses([...inputErrors(schema), ...errors, httpErrors.STORE_UNAVAILABLE]);
  return {
    ...schema,
    'x-error-types': derived['x-error-types'],
    response: { ...(schema.response ?? {}), ...derived.response },
  };
}
