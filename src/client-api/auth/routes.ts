import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { vouchedClientAddress } from '../../core/api-keys/vouched-address.ts';
import { httpErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { toUserValue } from '../users/service.ts';
import { authenticationErrors } from './errors.ts';
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

const tag = 'authentication';
const { CREDENTIALS_INVALID, LOGIN_THROTTLED } = authenticationErrors;
const { METHOD_NOT_ALLOWED, RATE_LIMITED } = httpErrors;

export function authRoutes(
  app: App,
  { access, auth, core }: Pick<ClientApi, 'access' | 'auth'> & { core: Pick<ClientApi['core'], 'apiKeys'> },
): void {
  // The chat page signs people in through these operations: a runtime key may name the person's address.
  const clientAddress = (request: FastifyRequest) => vouchedClientAddress(core.apiKeys, request);

  app.post(
    '/auth/:deviceClass/users/authenticate',
    access.route(
      {
        id: 'Authentication_AuthenticateUserAsync',
        description:
          'Checks the user name and password of the body. On success the device (class from the path, `deviceId` and `deviceName` from the body) is registered on first sight, within MAX_DEVICES_PER_ACCOUNT, a session is opened and the user is answered with an access token and a refresh token; with `auth-only` the credentials are only checked: no device, no session. Wrong credentials are 401; failed attempts are throttled per user name and per address (429 LOGIN_THROTTLED with Retry-After).',
        code: 'AUTHENTICATE_NMP',
        summary:
          'Signs a user in on a device: registers the device on first sight, opens a session and returns the user and its tokens (auth-only: only checks).',
        tag,
        security: 'none',
        errors: [
          CREDENTIALS_INVALID,
          LOGIN_THROTTLED,
          RATE_LIMITED,
          deviceErrors.DEVICE_DISABLED,
          deviceErrors.DEVICE_LIMIT_REACHED,
        ],
      },
      {
        params: DeviceClassParams,
        querystring: AuthenticateQuery,
        body: Credential,
        response: { 200: UserResponse },
      },
    ),
    async (request) => {
      const result = await auth.authenticate(
        request.params.deviceClass,
        request.body,
        request.query.qspVersion,
        request.query['auth-only'] === true,
        await clientAddress(request),
      );
      return { user: toUserValue(result.user), ...('tokens' in result ? { tokens: result.tokens } : {}) };
    },
  );

  app.get(
    '/auth/:deviceClass/users/authenticate',
    {
      exposeHeadRoute: false,
      ...access.route(
        {
          id: 'Authentication_BasicAuthenticateUserAsync',
          description:
            "Checks the `Authorization: Basic` credentials and answers 200 when they are a user's; nothing is opened or stored. Wrong or missing credentials are 401 with a Basic challenge.",
          code: 'AUTHENTICATED',
          summary: 'Checks HTTP Basic credentials: 200 when valid.',
          tag,
          security: 'basic',
          errors: [METHOD_NOT_ALLOWED, LOGIN_THROTTLED, RATE_LIMITED],
        },
        {
          params: DeviceClassParams,
          response: { 200: BasicCheck },
        },
      ),
    },
    async (request) => {
      const user = await auth.checkBasic(request.headers.authorization, await clientAddress(request));
      return { authenticated: true, platformUserId: user.platformUserId, accountNumber: user.accountNumber };
    },
  );

  app.head(
    '/auth/:deviceClass/users/authenticate',
    {
      // HEAD routes are left out of the document unless asked for.
      config: { swagger: { exposeHeadRoute: true } },
      ...access.route(
        {
          id: 'Authentication_HeadAuthByDeviceClassUsersAuthenticate',
          description:
            "Checks the `Authorization: Basic` credentials and answers 204 when they are a user's, with no body; nothing is opened or stored. Wrong or missing credentials are 401 with a Basic challenge.",
          code: 'AUTHENTICATED',
          summary: 'Checks HTTP Basic credentials: 204 when valid.',
          tag,
          security: 'basic',
          errors: [METHOD_NOT_ALLOWED, LOGIN_THROTTLED, RATE_LIMITED],
        },
        {
          params: DeviceClassParams,
          response: { 204: { type: 'null', description: 'Valid credentials.' } },
        },
      ),
    },
    async (request, reply) => {
      await auth.checkBasic(request.headers.authorization, await clientAddress(request));
      return reply.code(204).send(null);
    },
  );

  /** An operation of the device's session, authenticated by its refresh token (which rotates). */
  const refreshing = <R extends TSchema>(
    header: { id: string; code: string; summary: string; description: string },
    answer: R,
  ) =>
    access.route(
      { ...header, tag, security: 'refreshToken' },
      { params: DeviceTokenParams, querystring: TokenQuery, response: { 200: answer } },
    );

  app.get(
    '/auth/devices/:deviceClass/:deviceId/tokens',
    refreshing(
      {
        id: 'Authentication_GetTokensAsync',
        description:
          "Answers a new access token and a new refresh token for the device's session. The refresh token presented is spent: presenting it again closes the session, so a stolen and replayed token ends the session for both holders.",
        code: 'GET_TOKENS',
        summary: "Fresh tokens for the device's session, authenticated by its refresh token (which rotates).",
      },
      TokensResponse,
    ),
    async (request) => {
      const result = await auth.refresh(request.params, request.headers.authorization, request.query);
      return result.tokens;
    },
  );

  app.get(
    '/auth/devices/:deviceClass/:deviceId/userInfo',
    refreshing(
      {
        id: 'Authentication_GetUserAsync',
        description:
          "Answers the session's user with a new access token and a new refresh token, as after a sign-in. The refresh token presented is spent: presenting it again closes the session.",
        code: 'GET_USER_INFO',
        summary: "The session's user and fresh tokens, authenticated by its refresh token (which rotates).",
      },
      UserResponse,
    ),
    async (request) => {
      const result = await auth.refresh(request.params, request.headers.authorization, request.query);
      return { user: toUserValue(result.user), tokens: result.tokens };
    },
  );
}

/** The public keys of the device access tokens, at the root path (outside the base path). */
export function jwksRoute(app: App, { signingKeys }: Pick<ClientApi, 'signingKeys'>): void {
  app.get('/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return { keys: await signingKeys.published() };
  });
}
