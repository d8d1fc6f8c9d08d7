import type { FastifyRequest } from 'fastify';
import { commonErrors, errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { operation } from '../openapi.ts';
import { toUserValue } from '../users/service.ts';
import {
  AuthenticateQuery,
  BasicCheck,
  Credential,
  DeviceClassParams,
  DeviceTokenParams,
  TokenQuery,
  TokensResponse,
  UserResponse,
} from './schemas.ts';
import { createAuthService } from './service.ts';
import { bearer } from './tokens.ts';

const tag = 'authentication';
const BASIC_CHALLENGE = 'Basic realm="sintonia", charset="UTF-8"';
const AUTHENTICATE_METHODS = 'GET, HEAD, POST';

/** The user name and password of an `Authorization: Basic` header; a 401 with a challenge otherwise. */
function basicCredentials(request: FastifyRequest): { username: string; password: string } {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon <= 0) {
    throw commonErrors.CREDENTIALS_MISSING('HTTP Basic credentials (e-mail and password) are required.', {
      headers: { 'www-authenticate': BASIC_CHALLENGE },
    });
  }
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function registerAuthRoutes(app: App, deps: ClientApiDeps): void {
  const { repositories } = deps;
  const auth = createAuthService({
    config: deps.core.config,
    users: repositories.users,
    devices: repositories.devices,
    sessions: repositories.sessions,
    signingKeys: deps.signingKeys,
  });

  const checkBasic = async (request: FastifyRequest) => {
    const { username, password } = basicCredentials(request);
    try {
      return await auth.checkCredentials(username, password);
    } catch (error) {
      (error as { headers?: Record<string, string> }).headers = { 'www-authenticate': BASIC_CHALLENGE };
      throw error;
    }
  };

  app.post(
    '/auth/:deviceClass/users/authenticate',
    {
      schema: {
        ...operation({
          id: 'Authentication_AuthenticateUserAsync',
          errors: { 401: ['CREDENTIALS_INVALID'], 403: ['DEVICE_DISABLED'], 409: ['DEVICE_LIMIT_REACHED'] },
          code: 'AUTHENTICATE_NMP',
          summary:
            'Signs a user in on a device: registers the device on first sight, opens a session and returns the user and its tokens (auth-only: only checks).',
          tag,
          security: 'none',
        }),
        params: DeviceClassParams,
        querystring: AuthenticateQuery,
        body: Credential,
        response: { 200: UserResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => {
      const result = await auth.authenticate(
        request.params.deviceClass,
        request.body,
        request.query.qspVersion,
        request.query['auth-only'] === true,
      );
      return { user: toUserValue(result.user), ...('tokens' in result ? { tokens: result.tokens } : {}) };
    },
  );

  app.get(
    '/auth/:deviceClass/users/authenticate',
    {
      exposeHeadRoute: false,
      schema: {
        ...operation({
          id: 'Authentication_BasicAuthenticateUserAsync',
          errors: { 401: ['CREDENTIALS_INVALID'], 405: ['METHOD_NOT_ALLOWED'] },
          code: 'AUTHENTICATED',
          summary: 'Checks HTTP Basic credentials: 200 when valid.',
          tag,
          security: 'basic',
        }),
        params: DeviceClassParams,
        response: { 200: BasicCheck, ...errorResponses(400, 401, 405) },
      },
    },
    async (request) => {
      const user = await checkBasic(request);
      return { authenticated: true, platformUserId: user.platformUserId, accountNumber: user.accountNumber };
    },
  );

  app.head(
    '/auth/:deviceClass/users/authenticate',
    {
      // HEAD routes are left out of the document unless asked for.
      config: { swagger: { exposeHeadRoute: true } },
      schema: {
        ...operation({
          id: 'Authentication_HeadAuthByDeviceClassUsersAuthenticate',
          errors: { 401: ['CREDENTIALS_INVALID'], 405: ['METHOD_NOT_ALLOWED'] },
          code: 'AUTHENTICATED',
          summary: 'Checks HTTP Basic credentials: 204 when valid.',
          tag,
          security: 'basic',
        }),
        params: DeviceClassParams,
        response: {
          204: { type: 'null', description: 'Valid credentials.' },
          ...errorResponses(400, 401, 405),
        },
      },
    },
    async (request, reply) => {
      await checkBasic(request);
      return reply.code(204).send(null);
    },
  );

  app.route({
    method: ['PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/auth/:deviceClass/users/authenticate',
    schema: { hide: true },
    handler: async () => {
      throw commonErrors.METHOD_NOT_ALLOWED(`Allowed: ${AUTHENTICATE_METHODS}.`, {
        headers: { allow: AUTHENTICATE_METHODS },
      });
    },
  });

  app.get(
    '/auth/devices/:deviceClass/:deviceId/tokens',
    {
      schema: {
        ...operation({
          id: 'Authentication_GetTokensAsync',
          errors: { 401: ['REFRESH_TOKEN_INVALID'] },
          code: 'GET_TOKENS',
          summary:
            "Fresh tokens for the device's session, authenticated by its refresh token (which rotates).",
          tag,
          security: 'refreshToken',
        }),
        params: DeviceTokenParams,
        querystring: TokenQuery,
        response: { 200: TokensResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { deviceClass, deviceId } = request.params;
      const result = await auth.refresh(
        deviceClass,
        deviceId,
        bearer(request.headers.authorization),
        request.query,
      );
      return result.tokens;
    },
  );

  app.get(
    '/auth/devices/:deviceClass/:deviceId/userInfo',
    {
      schema: {
        ...operation({
          id: 'Authentication_GetUserAsync',
          errors: { 401: ['REFRESH_TOKEN_INVALID'] },
          code: 'GET_USER_INFO',
          summary: "The session's user and fresh tokens, authenticated by its refresh token (which rotates).",
          tag,
          security: 'refreshToken',
        }),
        params: DeviceTokenParams,
        querystring: TokenQuery,
        response: { 200: UserResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { deviceClass, deviceId } = request.params;
      const result = await auth.refresh(
        deviceClass,
        deviceId,
        bearer(request.headers.authorization),
        request.query,
      );
      return { user: toUserValue(result.user), tokens: result.tokens };
    },
  );
}

/** The public keys of the device access tokens, at the root path (outside the base path). */
export function registerJwksRoute(app: App, deps: ClientApiDeps): void {
  app.get('/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return { keys: await deps.signingKeys.published() };
  });
}
