import type { FastifyContextConfig } from 'fastify';
import type { Config } from '../core/config.ts';
import type { DelegationScope } from '../core/delegation.ts';
import { type ErrorSpec, httpErrors, subsystemErrors } from '../core/errors.ts';
import type { OpenApiDefinition } from '../core/http/openapi.ts';
import { operationSchema } from '../core/http/operation.ts';
import type { RouteSchema } from '../core/http/route-errors.ts';
import { type CredentialKind, credentialErrors } from './auth/credentials.ts';
import { mediaBodyErrors } from './media/errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The path and path parameters the API document shows for this route, when they differ from its own. */
    documentedAs?: { url: string; params: unknown };
  }
}

/** The four media types every client API operation consumes and produces. */
export const clientApiMediaTypes = [
  'application/json',
  'application/bson',
  'application/ubjson',
  'application/xml',
] as const;

/** Each kind of credentials as security requirements, by the names of `securityDefinitions`. */
export const securityRequirements: Record<CredentialKind, ReadonlyArray<Record<string, []>>> = {
  /** A device access token of the account, or an operator key. */
  deviceOrOperator: [{ BearerToken: [] }, { ApiKey: [] }],
  /** A token of a person of the account (a device's, or the assistant's delegated one): no operator key. */
  person: [{ BearerToken: [] }],
  /** An operator (backoffice) key only. */
  operator: [{ ApiKey: [] }],
  /** The session's refresh token as a bearer. */
  refreshToken: [{ BearerToken: [] }],
  /** HTTP Basic credentials of a user. */
  basic: [{ BasicAuth: [] }],
  none: [],
};

/** Who may call an operation taking each kind of credentials: the access line ending its description. */
const accessLines: Record<CredentialKind, string> = {
  deviceOrOperator:
    'Access: a device access token of the account (`Authorization: Bearer`), on its own account and user only (others: 403), or an operator key (`X-API-Key`, class backoffice) on any.',
  person:
    'Access: a token of a person of the account — a device access token, or the assistant’s delegated token where `x-delegated-scope` allows; operator keys are refused (403).',
  operator: 'Access: an operator key only (`X-API-Key`, class backoffice).',
  refreshToken:
    'Access: the session’s refresh token as `Authorization: Bearer`; each use rotates it, and presenting a rotated one again closes the session.',
  basic:
    'Access: HTTP Basic credentials of a user (e-mail and password); failed attempts are throttled per user name and per address (429 LOGIN_THROTTLED).',
  none: 'Access: no credentials.',
};

/** The operation's vendor extension naming the scope a delegated token needs (`operation({ delegated })`). */
export const DELEGATED_SCOPE = 'x-delegated-scope';

/**
 * A client API route schema: its contract name (operation id and, as `x-operation-code`, its operation
 * code), a summary, a tag and who may call it, around the schema's own parts. The error responses
 * derive from the catalogue entries the operation raises (`errors`), the credentials it takes
 * (auth/credentials.ts), its body and Accept negotiation.
 */
export function operation<S extends RouteSchema>(
  options: {
    id: string;
    code?: string;
    summary: string;
    /** What the operation does beyond its summary; the access line follows it. */
    description: string;
    tag: string;
    security: CredentialKind;
    /** The catalogue entries the operation's own rules raise, e.g. `[deviceErrors.DEVICE_NOT_FOUND]`. */
    errors?: readonly ErrorSpec[];
    /**
     * The scope with which the assistant's delegated token may call it, on its linked account only; no
     * scope: delegated tokens are refused (403). The guards read it from the route's schema.
     */
    delegated?: DelegationScope;
  },
  schema: S,
): S {
  return operationSchema(
    {
      id: options.id,
      extensions: {
        ...(options.code ? { 'x-operation-code': options.code } : {}),
        ...(options.delegated ? { [DELEGATED_SCOPE]: options.delegated } : {}),
      },
      summary: options.summary,
      description: [
        options.description,
        accessLines[options.security],
        options.delegated
          ? `The assistant’s delegated token may call it with scope \`${options.delegated}\`, on its linked account only.`
          : '',
      ]
        .filter(Boolean)
        .join(' '),
      tags: [options.tag],
      security: securityRequirements[options.security],
      errors: [
        ...credentialErrors[options.security],
        ...(schema.body ? mediaBodyErrors : []),
        httpErrors.NOT_ACCEPTABLE,
        // A delegated token is checked against the assistant's published keys: 502 when they cannot be fetched.
        ...(options.delegated ? [subsystemErrors.SUBSYSTEM_ERROR] : []),
        ...(options.errors ?? []),
      ],
    },
    schema,
  );
}

/**
 * The client API's Swagger 2.0 document, version V1, served under the base path. Routes outside the base path
 * (monitoring, the JWKS) are left out; paths are written relative to `basePath`.
 */
export function clientApiOpenApi(config: Pick<Config, 'CLIENT_API_BASE_PATH'>): OpenApiDefinition {
  const basePath = config.CLIENT_API_BASE_PATH || '/';
  const prefix = config.CLIENT_API_BASE_PATH;
  return {
    format: 'swagger2',
    documentPath: `${prefix}/swagger.json`,
    document: {
      info: {
        title: 'Sintonia client API',
        version: 'V1',
        description:
          'Accounts, devices, sessions, ratings, bookmarks, advertising and device tokens. Every operation consumes and produces JSON, BSON, UBJSON and XML; errors are `{ code, message, errors: [{ type, message }] }` (the Error definition).',
      },
      basePath,
      schemes: ['http'],
      consumes: [...clientApiMediaTypes],
      produces: [...clientApiMediaTypes],
      tags: [
        { name: 'accounts', description: 'The account’s encoded user code.' },
        {
          name: 'devices',
          description: 'The account’s devices (media players): list, read, rename, enable, delete.',
        },
        { name: 'sessions', description: 'Closing the sessions of an account or of one device.' },
        { name: 'users', description: 'Looking users up by e-mail address (operators).' },
        {
          name: 'authentication',
          description: 'Sign-in, HTTP Basic checks, and device tokens from a refresh token.',
        },
        {
          name: 'tv sign-in',
          description: 'A TV signed in by a person on another screen (OAuth 2.0 device grant).',
        },
        { name: 'bookmarks', description: 'Last playback positions of content items.' },
        {
          name: 'playback',
          description: 'Who is watching: each device’s stream and the account’s stream limit.',
        },
        { name: 'ratings', description: 'A user’s rating of a content item.' },
        { name: 'subscriptions', description: 'Offers and the home-zone subscription.' },
        { name: 'advertising', description: 'Ad breaks and VAST tags of content items.' },
        { name: 'campaigns', description: 'Advertising contacts of an account.' },
        { name: 'registration', description: 'The registration e-mail.' },
      ],
      securityDefinitions: {
        BearerToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            '`Bearer <token>`: a device access token (JWT, ES256; keys at /.well-known/jwks.json), or the refresh token on the token operations, or a token the assistant signed for its linked user (POST /users/{assistantId}/delegations on assistant-auth), on the operations whose `x-delegated-scope` it holds.',
        },
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'An operator key (`sintonia key create --class backoffice`).',
        },
        BasicAuth: { type: 'basic', description: 'A user e-mail and password.' },
      },
    },
    transformObject: (documentObject) =>
      'swaggerObject' in documentObject
        ? tidyDocument(documentObject.swaggerObject)
        : documentObject.openapiObject,
    transform: ({ schema, url, route }) => {
      const inside = prefix === '' || url === prefix || url.startsWith(`${prefix}/`);
      const hidden = !inside || Boolean(schema?.hide);
      // A route may document another path and path parameters than it routes by: the contract's
      // `{codPersona};{codOferta}` is one router parameter split by the route (subscriptions/routes.ts).
      const documented = (route.config as FastifyContextConfig | undefined)?.documentedAs;
      return {
        schema: { ...(schema ?? {}), ...(documented ? { params: documented.params } : {}), hide: hidden },
        url: documented?.url ?? route.url,
      };
    },
  };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const ERROR_REF = { $ref: '#/definitions/Error' };

/** The family's error body, wherever @fastify/swagger inlined it. */
const isErrorBody = (schema: unknown): boolean =>
  isObject(schema) && isObject(schema.xml) && schema.xml.name === 'Error' && isObject(schema.properties);

/** Drops the `$id`s TypeBox and ajv leave in inlined schemas (not Swagger 2 keywords). */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== '$id')
      .map(([key, inner]) => [key, withoutIds(inner)]),
  );
}

/**
 * Every error response refers to the one `Error` definition (whose items refer to `ErrorItem`); query
 * parameters with a default are optional (ajv fills the default); bodies are required; no stray `$id`.
 */
function tidyDocument<T>(document: T): T {
  const tidy = withoutIds(document) as Json;
  const definitions = isObject(tidy.definitions) ? tidy.definitions : {};
  const error = definitions.Error;
  if (isObject(error) && isObject(error.properties) && isObject(error.properties.errors)) {
    error.properties.errors.items = { $ref: '#/definitions/ErrorItem' };
  }
  for (const operations of Object.values(isObject(tidy.paths) ? tidy.paths : {})) {
    for (const [method, operationObject] of Object.entries(isObject(operations) ? operations : {})) {
      if (!isObject(operationObject)) continue;
      // @fastify/swagger suffixes HEAD operation ids with `-head`; the contract's ids are distinct already.
      if (method === 'head' && typeof operationObject.operationId === 'string') {
        operationObject.operationId = operationObject.operationId.replace(/-head$/, '');
      }
      for (const response of Object.values(
        isObject(operationObject.responses) ? operationObject.responses : {},
      )) {
        if (isObject(response) && isErrorBody(response.schema)) response.schema = { ...ERROR_REF };
      }
      for (const parameter of Array.isArray(operationObject.parameters) ? operationObject.parameters : []) {
        if (!isObject(parameter)) continue;
        if (parameter.in === 'query' && parameter.default !== undefined) parameter.required = false;
        // A route with a body schema refuses a request without one (400), so its body is required.
        if (parameter.in === 'body') parameter.required = true;
      }
    }
  }
  return tidy as T;
}
