import Type from 'typebox';
import type { App } from '../../core/http/service-app.ts';
import type { AssistantAuth } from '../composition.ts';
import { userErrors } from '../users/errors.ts';
import { assistantUserSchema } from '../users/schemas.ts';
import { callbackQuery } from './schemas.ts';

const tag = 'callbacks';

/** The gateway's account-linking callbacks: no API key, the ciphered `data` parameter instead. */
export function callbackRoutes(app: App, { audit, access, callbackParams, users }: AssistantAuth): void {
  app.get(
    '/users/assistantid/integrated',
    access.route(
      {
        id: 'addIntegratedUser',
        summary: 'Gateway callback after it created an authentication session: adds the user record.',
        description:
          '201 with the new user, 200 when the identity already has a valid one. With `accountNumber` in the payload the user is linked to that pay-TV account (`linkedAccount`), replacing an earlier link.',
        tag,
        access: 'callback',
      },
      { querystring: callbackQuery, response: { 200: assistantUserSchema, 201: assistantUserSchema } },
    ),
    async (request, reply) =>
      callbackParams.use(request.query.data, async (payload) => {
        const found = await users.findOrCreate(
          { channel: payload.channel, identity: payload.identity, phoneNumber: payload.phoneNumber },
          'integrated',
        );
        let user = found.user;
        if (payload.accountNumber !== undefined) {
          const { accountNumber, platformUserId } = payload;
          user = await users.link(user.assistantId, {
            accountNumber,
            ...(platformUserId === undefined ? {} : { platformUserId }),
          });
          await audit('gateway-callback', 'assistant-user.link', user.assistantId);
        }
        return reply.code(found.created ? 201 : 200).send(user);
      }),
  );
  app.get(
    '/users/assistantid/integrated/logout',
    access.route(
      {
        id: 'removeIntegratedUser',
        summary: 'Gateway callback after it removed the authentication session: removes the user record.',
        description:
          'Removes every record of the identity, and with them any account link. 404 when the identity has no record.',
        tag,
        access: 'callback',
        errors: [userErrors.USER_NOT_FOUND],
      },
      { querystring: callbackQuery, response: { 204: Type.Null({ description: 'Removed.' }) } },
    ),
    async (request, reply) =>
      callbackParams.use(request.query.data, async (payload) => {
        await users.removeIdentity({ channel: payload.channel, identity: payload.identity });
        return reply.code(204).send(null);
      }),
  );
}
