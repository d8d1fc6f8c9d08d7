import Type from 'typebox';
import type { Core } from '../../core/core.ts';
import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { accessDescription, accessSecurity } from '../access.ts';
import { assistantUserSchema } from '../users/schemas.ts';
import type { UserService } from '../users/service.ts';
import { openCallbackParam } from './callback-param.ts';

const callbackQuery = Type.Object({
  data: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: 'AES-256-GCM sealed JSON `{ identity, channel, exp, nonce, phoneNumber? }`, single use.',
  }),
});

/** The gateway's account-linking callbacks: no API key, the ciphered `data` parameter instead. */
export async function registerCallbackRoutes(app: App, core: Core, users: UserService): Promise<void> {
  const security = accessSecurity('callback');
  app.get(
    '/users/assistantid/integrated',
    {
      schema: {
        operationId: 'addIntegratedUser',
        summary: 'Gateway callback after it created an authentication session: adds the user record.',
        description: `201 with the new user, 200 when the identity already has a valid one. ${accessDescription('callback')}`,
        tags: ['callbacks'],
        security,
        querystring: callbackQuery,
        response: {
          200: assistantUserSchema,
          201: assistantUserSchema,
          ...errorResponses(400, 401),
        },
      },
    },
    async (request, reply) => {
      const payload = await openCallbackParam(core, request.query.data);
      const { user, created } = await users.findOrCreate(
        { channel: payload.channel, identity: payload.identity, phoneNumber: payload.phoneNumber },
        'integrated',
      );
      return reply.code(created ? 201 : 200).send(user);
    },
  );
  app.get(
    '/users/assistantid/integrated/logout',
    {
      schema: {
        operationId: 'removeIntegratedUser',
        summary: 'Gateway callback after it removed the authentication session: removes the user record.',
        description: `404 when the identity has no record. ${accessDescription('callback')}`,
        tags: ['callbacks'],
        security,
        querystring: callbackQuery,
        response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const payload = await openCallbackParam(core, request.query.data);
      await users.removeIdentity({ channel: payload.channel, identity: payload.identity });
      return reply.code(204).send(null);
    },
  );
}
