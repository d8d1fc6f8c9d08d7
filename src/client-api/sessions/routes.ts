import { type App, noContent } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { AccountParams, DeviceParams, QspQuery } from '../devices/schemas.ts';
import { sessionErrors } from './errors.ts';

const tag = 'sessions';
const closed = {
  type: 'null',
  description: 'Sessions closed; their tokens are refused from now on.',
} as const;

export function sessionRoutes(app: App, { access, sessions }: Pick<ClientApi, 'access' | 'sessions'>): void {
  app.delete(
    '/accounts/:accountNumber/sessions',
    access.route(
      {
        id: 'AccountManagement_TearDownSessionsAsync',
        description:
          "Closes every open session of the account's devices whose qspVersion matches (`All`: every session). The closed sessions' access and refresh tokens are refused from the very next request, the assistant's delegated tokens resting on them included.",
        code: 'DELETE_SESSIONS',
        summary: "Closes the account's sessions of one qspVersion (All: every one).",
        tag,
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'sessions:write',
        errors: [accountErrors.ACCOUNT_NOT_FOUND, sessionErrors.SESSION_NOT_FOUND],
      },
      {
        params: AccountParams,
        querystring: QspQuery,
        response: { 204: closed },
      },
    ),
    async ({ params, query }, reply) =>
      noContent(reply, sessions.closeAccountSessions(params.accountNumber, query.qspVersion)),
  );

  app.delete(
    '/accounts/:accountNumber/devices/:mediaPlayerId/sessions',
    access.route(
      {
        id: 'AccountManagement_TearDownDeviceSessionsAsync',
        description:
          "Closes one device's open sessions whose qspVersion matches (`All`: every session); their access and refresh tokens are refused from the next request. The device stays registered and enabled.",
        code: 'DELETE_DEVICE_SESSIONS',
        summary: "Closes one device's sessions of one qspVersion (All: every one).",
        tag,
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'sessions:write',
        errors: [
          accountErrors.ACCOUNT_NOT_FOUND,
          deviceErrors.DEVICE_NOT_FOUND,
          sessionErrors.SESSION_NOT_FOUND,
        ],
      },
      {
        params: DeviceParams,
        querystring: QspQuery,
        response: { 204: closed },
      },
    ),
    async ({ params, query }, reply) =>
      noContent(
        reply,
        sessions.closeDeviceSessions(params.accountNumber, params.mediaPlayerId, query.qspVersion),
      ),
  );
}
