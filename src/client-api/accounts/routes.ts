import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { AccountParams } from '../devices/schemas.ts';
import { operation } from '../openapi.ts';
import { UserHashResponse } from './schemas.ts';

export function registerAccountRoutes(app: App, deps: ClientApiDeps): void {
  const { guards } = deps;
  app.get(
    '/accounts/:accountNumber/userHash',
    {
      onRequest: [guards.authenticate, guards.requireAccount('accountNumber')],
      schema: {
        ...operation({
          id: 'AccountManagement_GetUserHashAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND'] },
          code: 'GET_USER_HASH',
          summary: "The account's userHash (its encoded user code).",
          tag: 'accounts',
          security: 'deviceOrOperator',
        }),
        params: AccountParams,
        response: { 200: UserHashResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const account = await deps.accountService.require(request.params.accountNumber);
      return { userHash: account.userHash };
    },
  );
}
