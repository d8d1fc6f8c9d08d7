import type { ErrorSpec } from '../core/errors.ts';
import { apiKeyScheme, bearerScheme, openApi3Definition } from '../core/http/openapi.ts';
import { operationSchema } from '../core/http/operation.ts';
import type { RouteSchema } from '../core/http/route-errors.ts';
import { AGENTS_AUDIENCE, agentCallerErrors } from './auth.ts';
import { agentErrors } from './errors.ts';

/** The OpenAPI 3 document of the agents server; paths come from the routes' own schemas. */
export const agentsOpenApi = openApi3Definition({
  realm: AGENTS_AUDIENCE,
  info: {
    title: 'Sintonia agents server',
    version: '1.0.0',
    description:
      'Agents registered by name, invoked with JSON or streamed with Server-Sent Events. Every error uses the family body `{ code, message, errors: [{ type, message }] }`: `code` is the category of the status, `errors[].type` the agent error code (AGENT_NOT_FOUND, AGENT_CONFIG_ERROR, AGENT_VALIDATION_ERROR, AGENT_EXECUTION_ERROR, AGENT_EXTERNAL_SERVICE_ERROR, AGENT_MODEL_ERROR, AGENT_RATE_LIMIT_ERROR, AGENT_ERROR) or the framework’s (VALIDATION_ERROR, RESPONSE_VALIDATION_ERROR, CREDENTIALS_MISSING, API_KEY_INVALID, TOKEN_INVALID, ACCESS_DENIED, SUBSYSTEM_ERROR…). 429 carries Retry-After.',
  },
  securitySchemes: {
    apiKey: apiKeyScheme(
      'API key of class runtime or backoffice. Missing: 401; unknown or revoked: 401; other class: 403.',
    ),
    assistantJwt: bearerScheme(
      'A JWT signed by the assistant (ES256 or RS256, with kid), verified against assistant-auth’s /openid/jwk: iss the assistant issuer, aud `sintonia-agents`, exp required. Invalid: 401.',
      'JWT',
    ),
  },
  tags: [
    { name: 'agents', description: 'Agents and their turns.' },
    { name: 'monitoring', description: 'Health, readiness and metrics.' },
  ],
});

const access =
  'Access: an `X-API-Key` of class runtime or backoffice, or `Authorization: Bearer <JWT>` signed by the assistant (aud `sintonia-agents`).';

/**
 * An agents route schema: its operation id, summary and who may call it around the schema's own parts.
 * The error responses derive from what the caller check answers, the catalogue entries the route raises
 * (`errors`) and AGENT_ERROR, which anything unexpected becomes.
 */
export function agentOperation<S extends RouteSchema>(
  options: { id: string; summary: string; description?: string; errors: readonly ErrorSpec[] },
  schema: S,
): S {
  return operationSchema(
    {
      id: options.id,
      summary: options.summary,
      description: options.description ? `${access} ${options.description}` : access,
      tags: ['agents'],
      security: [{ apiKey: [] }, { assistantJwt: [] }],
      errors: [...agentCallerErrors, ...options.errors, agentErrors.AGENT_ERROR],
    },
    schema,
  );
}
