import Type from 'typebox';
import { subsystemErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { AssistantAuth } from '../composition.ts';
import { userErrors } from './errors.ts';
import {
  assistantIdGlobalParams,
  assistantIdParams,
  assistantUserSchema,
  channelIdentityHeaders,
  channelOnlyHeaders,
  delegationRequestSchema,
  delegationSchema,
  delegationStatusRequestSchema,
  delegationStatusSchema,
  externalUserHeaders,
  phoneNumberParams,
} from './schemas.ts';

const tag = 'users';
const userAnswers = { 200: assistantUserSchema, 201: assistantUserSchema };
const {
  USER_NOT_FOUND,
  ASSISTANT_ID_EXPIRED,
  ASSISTANT_ID_GLOBAL_NOT_FOUND,
  PHONE_NUMBER_NOT_FOUND,
  ASSISTANT_USER_NOT_LINKED,
  ASSISTANT_USER_SIGNED_OUT,
} = userErrors;

/** Assistant users; each route names its access class. */
export function userRoutes(app: App, { access, users, delegations }: AssistantAuth): void {
  app.get(
    '/users/assistant-id',
    access.route(
      {
        id: 'findOrCreateChannelUser',
        summary: 'The user of a channel identity: the existing one, or a new one.',
        description:
          'For channels with their own authentication: the channel sends its name and its user id in headers. 200 with the existing valid user, 201 with a new one.',
        tag,
        access: 'gateway',
      },
      { headers: channelIdentityHeaders, response: userAnswers },
    ),
    async (request, reply) => {
      const headers = request.headers;
      const { user, created } = await users.findOrCreate(
        {
          channel: headers['x-channel'],
          identity: headers['x-channel-user-id'],
          phoneNumber: headers['x-phone-number'],
        },
        'channel',
      );
      return reply.code(created ? 201 : 200).send(user);
    },
  );

  app.get(
    '/users/assistant-id/:assistantId',
    access.route(
      {
        id: 'createExternalUser',
        summary: 'Creates a user whose assistantId comes from an external service’s authentication.',
        description: '201 when created (or an expired one renewed), 200 when it exists and is valid.',
        tag,
        access: 'internal',
      },
      { params: assistantIdParams, headers: externalUserHeaders, response: userAnswers },
    ),
    async (request, reply) => {
      const { user, created } = await users.createExternal(
        request.params.assistantId,
        request.headers['x-channel'],
        request.headers['x-phone-number'],
      );
      return reply.code(created ? 201 : 200).send(user);
    },
  );

  app.get(
    '/users/assistant-id-global/:assistant_id_global',
    access.route(
      {
        id: 'getNewestChannelUser',
        summary: 'The newest valid assistantId of the caller’s channel for this assistantIdGlobal.',
        description: 'The channel is named by the X-Channel header.',
        tag,
        access: 'gateway',
        errors: [ASSISTANT_ID_GLOBAL_NOT_FOUND],
      },
      {
        params: assistantIdGlobalParams,
        headers: channelOnlyHeaders,
        response: { 200: assistantUserSchema },
      },
    ),
    async (request) =>
      users.newestOfChannel(request.params.assistant_id_global, request.headers['x-channel']),
  );

  app.get(
    '/users/:assistantId',
    access.route(
      {
        id: 'getAssistantUser',
        summary: 'Reads and validates a logged-in user.',
        description:
          '404 USER_NOT_FOUND when unknown; 410 ASSISTANT_ID_EXPIRED when its assistantId has expired.',
        tag,
        access: 'internal',
        errors: [USER_NOT_FOUND, ASSISTANT_ID_EXPIRED],
      },
      { params: assistantIdParams, response: { 200: assistantUserSchema } },
    ),
    async (request) => users.read(request.params.assistantId),
  );

  app.post(
    '/users/:assistantId/delegations',
    access.route(
      {
        id: 'createDelegation',
        summary: 'A short-lived token with which the assistant acts on its user’s linked pay-TV account.',
        description:
          'A JWT the assistant signs (ES256): `aud` sintonia-client-api, `sub` the assistantId, `acc` the linked account, `scope`, `act` naming the runtime key that asked, and `sid` when the link rests on a sign-in’s client API session; it lives DELEGATION_TTL seconds (at most 300). client-api verifies it against this service’s JWKS and refuses it once the link or that session is gone. 409 ASSISTANT_USER_NOT_LINKED for a user without a linked account, 409 ASSISTANT_USER_SIGNED_OUT when the sign-in its link rests on has ended (asked of client-api: 502 when it cannot answer).',
        tag,
        access: 'internal',
        errors: [
          USER_NOT_FOUND,
          ASSISTANT_ID_EXPIRED,
          ASSISTANT_USER_NOT_LINKED,
          ASSISTANT_USER_SIGNED_OUT,
          subsystemErrors.SUBSYSTEM_ERROR,
        ],
      },
      { params: assistantIdParams, body: delegationRequestSchema, response: { 201: delegationSchema } },
    ),
    async (request, reply) => {
      const delegation = await delegations.issue(
        request.params.assistantId,
        request.body.scope,
        request.apiKey?.id ?? 'unknown',
      );
      return reply.code(201).header('cache-control', 'no-store').send(delegation);
    },
  );

  app.post(
    '/delegations/status',
    access.route(
      {
        id: 'getDelegationStatus',
        summary: 'Whether a delegated token still stands: client-api asks before honouring one.',
        description:
          'Active while the token is this service’s, unexpired, and its assistant user is still there and linked to the token’s account: an unlinked or removed user’s tokens stop at once, not when they expire. No key: the caller shows the token itself, and learns only what client-api would answer to it.',
        tag,
        access: 'open',
      },
      { body: delegationStatusRequestSchema, response: { 200: delegationStatusSchema } },
    ),
    async (request, reply) => {
      const active = await delegations.active(request.body.token);
      return reply.header('cache-control', 'no-store').send({ active });
    },
  );

  app.delete(
    '/users/:assistantId',
    access.route(
      {
        id: 'deleteAssistantUser',
        summary: 'Removes a logged-in user’s information.',
        description: 'Used by the bot and by non-integrated channels.',
        tag,
        access: 'internal-or-gateway',
        errors: [USER_NOT_FOUND],
      },
      { params: assistantIdParams, response: { 204: Type.Null({ description: 'Removed.' }) } },
    ),
    async (request, reply) => {
      await users.remove(request.params.assistantId);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/admin/users/phone-numbers/:phone_number',
    {
      // The path carries the phone number: no info-level request lines (they log the URL).
      logLevel: 'warn',
      ...access.route(
        {
          id: 'eraseUsersByPhoneNumber',
          summary: 'Data-protection erasure: removes every record of the person with this phone number.',
          description:
            'The phone number is E.164 (`+` URL-encoded as %2B or sent as is). Every assistantId of the person (all channels, tied by assistantIdGlobal) is removed; an audit line without personal data is kept.',
          tag,
          access: 'gateway',
          errors: [PHONE_NUMBER_NOT_FOUND],
        },
        { params: phoneNumberParams, response: { 204: Type.Null({ description: 'Erased.' }) } },
      ),
    },
    async (request, reply) => {
      await users.eraseByPhone(request.params.phone_number, `key:${request.apiKey?.id ?? 'unknown'}`);
      return reply.code(204).send(null);
    },
  );
}
