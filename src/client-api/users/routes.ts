import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { operation } from '../openapi.ts';
import { EmailParams, User, UserList } from './schemas.ts';

const tag = 'users';

export function registerUserRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, userService } = deps;
  const access = { onRequest: [guards.authenticate, guards.requireOperator] };

  app.get(
    '/users/:email',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_GetUserByEmailAsync',
          errors: { 404: ['USER_NOT_FOUND'] },
          code: 'GET_USER_BY_EMAIL',
          summary: 'The user with this e-mail (the oldest, when several accounts have one). Operators only.',
          tag,
          security: 'operator',
        }),
        params: EmailParams,
        response: { 200: User, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => userService.byEmail(request.params.email),
  );

  app.get(
    '/users2/:email',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_GetUsersByEmailAsync',
          code: 'GET_USERS_BY_EMAIL',
          summary: 'Every user with this e-mail (maybe none). Operators only.',
          tag,
          security: 'operator',
        }),
        params: EmailParams,
        response: { 200: UserList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => userService.allByEmail(request.params.email),
  );
}
