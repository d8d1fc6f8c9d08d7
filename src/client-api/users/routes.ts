import type { App } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { userErrors } from './errors.ts';
import { EmailParams, User, UserList } from './schemas.ts';

const tag = 'users';

export function userRoutes(
  app: App,
  { access, users: userService }: Pick<ClientApi, 'access' | 'users'>,
): void {
  app.get(
    '/users/:email',
    access.route(
      {
        id: 'AccountManagement_GetUserByEmailAsync',
        description:
          'Looks a user up by e-mail address (compared case-insensitively). When several accounts hold a user with that address, the oldest is answered. 404 when none does.',
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
    async (request) => userService.byEmail(request.params.email),
  );

  app.get(
    '/users2/:email',
    access.route(
      {
        id: 'AccountManagement_GetUsersByEmailAsync',
        description:
          'Lists every user holding this e-mail address (compared case-insensitively), across accounts, oldest first; an empty list when none does.',
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
    async (request) => userService.allByEmail(request.params.email),
  );
}
