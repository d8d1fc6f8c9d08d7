import type { App } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { operation } from '../openapi.ts';
import { userErrors } from './errors.ts';
import { EmailParams, User, UserList } from './schemas.ts';

const tag = 'users';

export function userRoutes(app: App, { guards, users: userService }: ClientApi): void {
  const access = { onRequest: [guards.authenticate, guards.requireOperator] };

  app.get(
    '/users/:email',
    {
      ...access,
      schema: operation(
        {
          id: 'AccountManagement_GetUserByEmailAsync',
          code: 'GET_USER_BY_EMAIL',
          summary: 'The user with this e-mail (the oldest, when several accounts have one). Operators only.',
          tag,
          security: 'operator',
          errors: [userErrors.USER_NOT_FOUND],
        },
        {
          params: EmailParams,
          response: { 200: User },
        },
      ),
    },
    async (request) => userService.byEmail(request.params.email),
  );

  app.get(
    '/users2/:email',
    {
      ...access,
      schema: operation(
        {
          id: 'AccountManagement_GetUsersByEmailAsync',
          code: 'GET_USERS_BY_EMAIL',
          summary: 'Every user with this e-mail (maybe none). Operators only.',
          tag,
          security: 'operator',
        },
        {
          params: EmailParams,
          response: { 200: UserList },
        },
      ),
    },
    async (request) => userService.allByEmail(request.params.email),
  );
}
