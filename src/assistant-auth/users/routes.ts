import Type from 'typebox';
import type { Core } from '../../core/core.ts';
import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { accessHooks, accessSecurity, accessDescription as says } from '../access.ts';
import {
  assistantIdGlobalParams,
  assistantIdParams,
  assistantUserSchema,
  channelIdentityHeaders,
  channelOnlyHeaders,
  externalUserHeaders,
  phoneNumberParams,
} from './schemas.ts';
import type { UserService } from './service.ts';

const tags = ['users'];
const apiKey = accessSecurity('gateway');
const userAnswers = { 200: assistantUserSchema, 201: assistantUserSchema };

/** Assistant users; each route names its SPEC access class. */
export async function registerUserRoutes(app: App, core: Core, users: UserService): Promise<void> {
  app.get(
    '/users/assistant-id',
    {
      onRequest: accessHooks(core, 'gateway'),
      schema: {
        operationId: 'findOrCreateChannelUser',
        summary: 'The user of a channel identity: the existing one, or a new one.',
        description: `For channels with their own authentication: the channel sends its name and its user id in headers. 200 with the existing valid user, 201 with a new one. ${says('gateway')}`,
        tags,
        security: apiKey,
        headers: channelIdentityHeaders,
        response: { ...userAnswers, ...errorResponses(400, 401, 403) },
      },
    },
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
    {
      onRequest: accessHooks(core, 'internal'),
      schema: {
        operationId: 'createExternalUser',
        summary: 'Creates a user whose assistantId comes from an external service’s authentication.',
        description: `201 when created (or an expired one renewed), 200 when it exists and is valid. ${says('internal')}`,
        tags,
        security: apiKey,
        params: assistantIdParams,
        headers: externalUserHeaders,
        response: { ...userAnswers, ...errorResponses(400, 401, 403) },
      },
    },
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
    {
      onRequest: accessHooks(core, 'gateway'),
      schema: {
        operationId: 'getNewestChannelUser',
        summary: 'The newest valid assistantId of the caller’s channel for this assistantIdGlobal.',
        description: `The channel is named by the X-Channel header. ${says('gateway')}`,
        tags,
        security: apiKey,
        params: assistantIdGlobalParams,
        headers: channelOnlyHeaders,
        response: { 200: assistantUserSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      users.newestOfChannel(request.params.assistant_id_global, request.headers['x-channel']),
  );

  app.get(
    '/users/:assistantId',
    {
      onRequest: accessHooks(core, 'internal'),
      schema: {
        operationId: 'getAssistantUser',
        summary: 'Reads and validates a logged-in user.',
        description: `404 USER_NOT_FOUND when unknown; 410 ASSISTANT_ID_EXPIRED when its assistantId has expired. ${says('internal')}`,
        tags,
        security: apiKey,
        params: assistantIdParams,
        response: { 200: assistantUserSchema, ...errorResponses(400, 401, 403, 404, 410) },
      },
    },
    async (request) => users.read(request.params.assistantId),
  );

  app.delete(
    '/users/:assistantId',
    {
      onRequest: accessHooks(core, 'internal-or-gateway'),
      schema: {
        operationId: 'deleteAssistantUser',
        summary: 'Removes a logged-in user’s information.',
        description: `Used by the bot and by non-integrated channels. ${says('internal-or-gateway')}`,
        tags,
        security: apiKey,
        params: assistantIdParams,
        response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(400, 401, 403, 404) },
      },
    },
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
      onRequest: accessHooks(core, 'gateway'),
      schema: {
        operationId: 'eraseUsersByPhoneNumber',
        summary: 'Data-protection erasure: removes every record of the person with this phone number.',
        description: `The phone number is E.164 (\`+\` URL-encoded as %2B or sent as is). Every assistantId of the person (all channels, tied by assistantIdGlobal) is removed; an audit line without personal data is kept. ${says('gateway')}`,
        tags,
        security: apiKey,
        params: phoneNumberParams,
        response: { 204: Type.Null({ description: 'Erased.' }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await users.eraseByPhone(request.params.phone_number, `key:${request.apiKey?.id ?? 'unknown'}`);
      return reply.code(204).send(null);
    },
  );
}
