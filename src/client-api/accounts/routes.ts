import type { App } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { AccountParams } from '../devices/schemas.ts';
import { accountErrors } from './errors.ts';
import { UserHashResponse } from './schemas.ts';

export function accountRoutes(app: App, { access, accounts }: Pick<ClientApi, 'access' | 'accounts'>): void {
  app.get(
    '/accounts/:accountNumber/userHash',
    access.route(
      {
        id: 'AccountManagement_GetUserHashAsync',
        description:
          "Answers the account's userHash: the user code encoded with the keyed hash that the bookmark paths take as `{userHash}`, so a client never sends the code itself. 404 for an unknown account.",
        code: 'GET_USER_HASH',
        summary: "The account's userHash (its encoded user code).",
        tag: 'accounts',
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        errors: [accountErrors.ACCOUNT_NOT_FOUND],
      },
      {
        params: AccountParams,
        response: { 200: UserHashResponse },
      },
    ),
    async (request) => {
      const account = await accounts.require(request.params.accountNumber);
      return { userHash: account.userHash };
    },
  );
}
