import type { FastifyReply, FastifyRequest } from 'fastify';
import { vouchedClientAddress } from '../../core/api-keys/vouched-address.ts';
import { type ErrorSpec, httpErrors } from '../../core/errors.ts';
import { toProblem } from '../../core/http/error-handler.ts';
import { errorResponses } from '../../core/http/route-errors.ts';
import { type App, typed } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { deviceGrantErrors, oauthErrorCode } from './errors.ts';
import { readForm } from './form-body.ts';
import { type PageDeps, verificationPageRoutes } from './page-routes.ts';
import {
  AuthorizationServerMetadata,
  DeviceAuthorizationRequest,
  DeviceAuthorizationResponse,
  OAuthError,
  TokenRequest,
  TokenResponse,
} from './schemas.ts';

const FORM = 'application/x-www-form-urlencoded';
/** A form body of these endpoints is a few hundred bytes. */
const FORM_BODY_LIMIT = 16 * 1024;

/**
 * Reads `application/x-www-form-urlencoded` bodies into a plain record; a repeated parameter is refused
 * (OAuth: "parameters MUST NOT be included more than once"). Any other body type is refused.
 */
function acceptForms(scope: App): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    FORM,
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      let form: Record<string, string>;
      try {
        form = readForm(body as string);
      } catch (error) {
        return done(error as Error, undefined);
      }
      done(null, form);
    },
  );
  scope.addContentTypeParser('*', (request, _payload, done) =>
    done(
      deviceGrantErrors.OAUTH_REQUEST_INVALID(
        `The body must be ${FORM}, not ${request.headers['content-type'] ?? 'untyped'}.`,
      ),
      undefined,
    ),
  );
}

/** Every refusal as an OAuth error body (RFC 6749 section 5.2) with the family's fields beside it. */
function oauthErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const { problem, unexpected } = toProblem(error);
  if (unexpected) request.log.error({ err: error }, 'unexpected error');
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .header('cache-control', 'no-store')
    .send({
      error: oauthErrorCode(problem.type, problem.status),
      error_description: problem.message,
      ...problem.toBody(),
    });
}

/**
 * An OAuth endpoint's schema: form in, JSON out, and for each error status the OAuth error body
 * described by the family error types it may carry (`x-error-types`, as every operation of the document).
 */
function oauthOperation<B, R>(
  header: { id: string; summary: string; description: string },
  body: B,
  answer: R,
  errors: readonly ErrorSpec[],
) {
  const derived = errorResponses([
    httpErrors.VALIDATION_ERROR,
    httpErrors.BODY_TOO_LARGE,
    ...errors,
    httpErrors.STORE_UNAVAILABLE,
  ]);
  const refusals = Object.fromEntries(
    Object.entries(derived.response).map(([status, documented]) => {
      const { description, headers } = documented as { description: string; headers?: unknown };
      return [status, { ...OAuthError, description, ...(headers ? { headers } : {}) }];
    }),
  );
  return {
    operationId: header.id,
    summary: header.summary,
    description: header.description,
    tags: ['tv sign-in'],
    security: [],
    consumes: [FORM],
    produces: ['application/json'],
    'x-error-types': derived['x-error-types'],
    body,
    response: { 200: answer, ...refusals },
  };
}

const e = deviceGrantErrors;

/**
 * The authorization server of the TV sign-in, under the base path in a scope of its own: OAuth speaks
 * form bodies and its own error body, not the client API's media types (docs/decisions.md).
 */
export async function deviceGrantOAuthRoutes(instance: App, api: PageDeps): Promise<void> {
  const scope = typed(instance);
  const { deviceGrants, core } = api;
  acceptForms(scope);
  scope.setErrorHandler(oauthErrorHandler);
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  scope.post(
    '/oauth/device_authorization',
    {
      schema: oauthOperation(
        {
          id: 'OAuth_DeviceAuthorization',
          summary: 'A TV asks for a sign-in code (RFC 8628 device authorization request).',
          description:
            '`client_id` is a device class of DEVICE_GRANT_CLIENT_IDS (a public client: no secret); `device_id` and `device_name` name the TV (its own word: the name is shown to the approver as untrusted text, and a device_id the account already holds gets a new device of its own). Errors: invalid_request, invalid_client, temporarily_unavailable (429: too many codes waiting or refused from this address, DEVICE_GRANT_MAX_PENDING_PER_ADDRESS; 503: too many waiting overall, DEVICE_GRANT_MAX_PENDING; both with Retry-After).',
        },
        DeviceAuthorizationRequest,
        DeviceAuthorizationResponse,
        [e.OAUTH_REQUEST_INVALID, e.OAUTH_CLIENT_UNKNOWN, e.PENDING_SIGN_INS_LIMITED, e.SIGN_INS_BUSY],
      ),
    },
    async (request, reply) => {
      noStore(reply);
      return deviceGrants.authorize(request.body, await vouchedClientAddress(core.apiKeys, request));
    },
  );

  scope.post(
    '/oauth/token',
    {
      schema: oauthOperation(
        {
          id: 'OAuth_Token',
          summary: 'A TV polls for its tokens with its device_code (RFC 8628 device access token request).',
          description:
            '`grant_type` is `urn:ietf:params:oauth:grant-type:device_code`. Until a person approves: 400 authorization_pending; faster than the interval: slow_down (the interval grows by 5 s); refused: access_denied (also when the account is full or the TV disabled); past expires_in: expired_token; unknown, used or of another client: invalid_grant. Approved: the tokens of a new session, as a password sign-in gives, and the device the TV became (`device_id`: its own, with a suffix when the account already held that id).',
        },
        TokenRequest,
        TokenResponse,
        [
          e.OAUTH_REQUEST_INVALID,
          e.OAUTH_CLIENT_UNKNOWN,
          e.OAUTH_GRANT_TYPE_UNSUPPORTED,
          e.DEVICE_CODE_INVALID,
          e.AUTHORIZATION_PENDING,
          e.POLLING_TOO_FAST,
          e.SIGN_IN_DENIED,
          e.DEVICE_CODE_EXPIRED,
        ],
      ),
    },
    async (request, reply) => {
      noStore(reply);
      return deviceGrants.poll(request.body);
    },
  );

  verificationPageRoutes(scope, api);
}

/** RFC 8414 metadata at the root path, for OAuth clients to discover the endpoints. */
export function authorizationServerMetadataRoute(
  app: App,
  { deviceGrants }: Pick<ClientApi, 'deviceGrants'>,
): void {
  app.get(
    '/.well-known/oauth-authorization-server',
    { schema: { hide: true, response: { 200: AuthorizationServerMetadata } } },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return deviceGrants.metadata();
    },
  );
}
