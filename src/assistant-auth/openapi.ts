import { errorBodySchema } from '../core/errors.ts';
import { apiKeyScheme, bearerScheme, openApi3Definition } from '../core/http/openapi.ts';
import { accessDescription } from './access.ts';

/** The OpenAPI 3 document of area B; paths come from the routes' own schemas. */
export const assistantAuthOpenApi = openApi3Definition({
  info: {
    title: 'Sintonia assistant authentication API',
    version: '1.0.0',
    description:
      'Area B: assistant users, gateway callbacks, conversation-channel tokens, the assistant’s public keys, monitoring and configuration. Errors use the family body `{ code, message, errors: [{ type, message }] }`.',
  },
  securitySchemes: {
    apiKey: apiKeyScheme(
      'API key (`snt_<class>_…`). Internal routes take class runtime, gateway-published routes class gateway, public routes any valid key. Missing, unknown or revoked: 401; wrong class: 403.',
    ),
    directLineBearer: bearerScheme(
      'Direct Line 3.0 routes of the embedded channel: `Authorization: Bearer <token>` with a conversation token, or the channel secret (`sintonia directline-secret`) where a route takes it. Missing: 401; invalid, expired or another conversation’s token: 403.',
    ),
    callbackData: {
      type: 'apiKey',
      in: 'query',
      name: 'data',
      description:
        'Gateway callbacks: AES-256-GCM sealed JSON `{ identity, channel, exp, nonce, phoneNumber? }` with the key shared with the gateway (`v1.<iv>.<ciphertext>.<tag>`, base64url parts). Tampered, expired or replayed: 401.',
    },
  },
  tags: [
    { name: 'users', description: 'Assistant users.' },
    { name: 'callbacks', description: 'Gateway account-linking callbacks.' },
    { name: 'conversation channel', description: 'Direct Line 3.0 tokens.' },
    { name: 'openid', description: 'The assistant’s public keys.' },
    { name: 'monitoring', description: 'Health, status, configuration and metrics.' },
  ],
  // The core's monitoring routes say nothing of keys: /metrics is public (any key), the probes are open.
  // Every operation may also answer 500 (an unexpected fault, described to no one).
  transform: ({ schema, url }) => {
    const base = schema ?? {};
    const response: Record<number, unknown> = {
      ...((base.response as Record<number, unknown> | undefined) ?? {}),
      500: { description: 'Unexpected fault.', content: { 'application/json': { schema: errorBodySchema } } },
    };
    if (url === '/metrics') {
      response[200] = {
        description: 'Prometheus text exposition format.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      };
      response[401] = {
        description: 'No, unknown or revoked API key.',
        content: { 'application/json': { schema: errorBodySchema } },
      };
      return {
        schema: { ...base, description: accessDescription('public'), security: [{ apiKey: [] }], response },
        url,
      };
    }
    if (url === '/healthz' || url === '/readyz') {
      return { schema: { ...base, description: accessDescription('open'), security: [], response }, url };
    }
    return { schema: { ...base, response }, url };
  },
});
