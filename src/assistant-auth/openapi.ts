import { httpErrors } from '../core/errors.ts';
import {
  apiKeyScheme,
  bearerScheme,
  type OpenApiDefinition,
  openApi3Definition,
} from '../core/http/openapi.ts';
import { errorResponses } from '../core/http/route-errors.ts';
import { accessClasses } from './access.ts';
import { callbackDataParameter } from './callbacks/schemas.ts';

/** The routes every service has (service-app.ts), by the access class they have here. */
const coreRoutes: Record<string, { access: (typeof accessClasses)[keyof typeof accessClasses] } | undefined> =
  {
    '/metrics': { access: accessClasses.open },
    '/healthz': { access: accessClasses.open },
    '/readyz': { access: accessClasses.open },
  };

/** Assistant-auth's OpenAPI 3 document; paths come from the routes' own schemas. */
export const assistantAuthOpenApi: OpenApiDefinition = {
  ...openApi3Definition({
    info: {
      title: 'Sintonia assistant authentication API',
      version: '1.0.0',
      description:
        'Assistant users, gateway callbacks, conversation-channel tokens, the assistant’s public keys, monitoring and configuration. Errors use the family body `{ code, message, errors: [{ type, message }] }`.',
    },
    securitySchemes: {
      apiKey: apiKeyScheme(
        'API key (`snt_<class>_…`). Internal routes take class runtime, gateway-published routes class gateway, public routes any valid key. Missing, unknown or revoked: 401; wrong class: 403.',
      ),
      directLineBearer: bearerScheme(
        'Direct Line 3.0 routes of the embedded channel: `Authorization: Bearer <token>` with a conversation token, or the channel secret (`sintonia directline-secret`) where a route takes it. Missing: 401; invalid, expired or another conversation’s token: 403.',
      ),
      fileSignature: {
        type: 'apiKey',
        in: 'query',
        name: 't',
        description:
          'An uploaded file’s contentUrl carries `t`, an HMAC binding the file to its conversation, so a browser’s <img> or link fetches it without a token. Invalid: 403.',
      },
      callbackData: {
        type: 'apiKey',
        in: 'query',
        name: 'data',
        description:
          'Gateway callbacks: AES-256-GCM sealed JSON `{ identity, channel, exp, nonce, phoneNumber? }` with the key shared with the gateway (`v1.<iv>.<ciphertext>.<tag>`, base64url parts). Missing, tampered, expired or replayed: 401.',
      },
    },
    tags: [
      { name: 'users', description: 'Assistant users.' },
      { name: 'callbacks', description: 'Gateway account-linking callbacks.' },
      { name: 'conversation channel', description: 'Direct Line 3.0 tokens.' },
      { name: 'openid', description: 'The assistant’s public keys.' },
      { name: 'monitoring', description: 'Health, status, configuration and metrics.' },
    ],
    // The core's monitoring routes: the probes are open, /metrics public (any valid key) unless METRICS_OPEN=1
    // opens it, as its route's own security says (docs/decisions.md); like every operation of the service
    // they may answer 500, and their errors are JSON even where the route produces text.
    transform: ({ schema, url }) => {
      const base = schema ?? {};
      const core = coreRoutes[url];
      if (!core) return { schema: base, url };
      const keyed = Array.isArray(base.security) && base.security.length > 0;
      const access = keyed ? accessClasses.public : core.access;
      const derived = errorResponses([...access.errors, httpErrors.INTERNAL_ERROR]);
      const response: Record<string, unknown> = {
        ...((base.response as Record<string, unknown> | undefined) ?? {}),
        ...derived.response,
      };
      for (const [status, answer] of Object.entries(response)) {
        if (Number(status) >= 400) response[status] = inJson(answer);
      }
      if (url === '/metrics') {
        response[200] = {
          description: 'Prometheus text exposition format.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        };
      }
      const errorTypes = {
        ...((base as { 'x-error-types'?: Record<string, string[]> })['x-error-types'] ?? {}),
        ...derived['x-error-types'],
      };
      return {
        schema: {
          ...base,
          description: [base.description, access.description].filter(Boolean).join(' '),
          security: access.security.map((requirement) => ({ ...requirement })),
          'x-error-types': errorTypes,
          response,
        },
        url,
      };
    },
  }),
  transformObject: (input) =>
    withCallbackDataParameter('openapiObject' in input ? input.openapiObject : input.swaggerObject),
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every operation secured by the callback parameter lists `data` among its parameters, required. */
function withCallbackDataParameter<T>(document: T): T {
  const paths = isObject(document) && isObject(document.paths) ? document.paths : {};
  for (const operations of Object.values(paths)) {
    for (const operationObject of Object.values(isObject(operations) ? operations : {})) {
      if (!isObject(operationObject) || !Array.isArray(operationObject.security)) continue;
      if (
        !operationObject.security.some(
          (requirement) => isObject(requirement) && 'callbackData' in requirement,
        )
      )
        continue;
      const parameters = Array.isArray(operationObject.parameters) ? operationObject.parameters : [];
      const others = parameters.filter(
        (parameter) => !(isObject(parameter) && parameter.in === 'query' && parameter.name === 'data'),
      );
      operationObject.parameters = [structuredClone(callbackDataParameter), ...others];
    }
  }
  return document;
}

/** An error response given as a reference to the family body, served as JSON whatever the route produces. */
function inJson(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || !('$ref' in answer)) return answer;
  const { $ref, ...described } = answer as { $ref: string };
  return { ...described, content: { 'application/json': { schema: { $ref } } } };
}
