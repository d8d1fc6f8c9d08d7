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

  app.delete(
    '/accounts/:accountNumber/sessions/current',
    access.route(
      {
        id: 'AccountManagement_SignOutCurrentSessionAsync',
        description:
          "Closes the one session the calling credential rests on, and no other: a device's own session (its sign-out; the device's other sessions, such as another browser signed in as the same device, stay open), or, for the assistant's delegated token, the session its `sid` names (the chat page sign-in it acts for). Its access and refresh tokens are refused from the next request; its command stream and the assistant's links resting on it end with it. Credentials resting on no session (an operator key, a delegated token of a link no sign-in made) are 409 NO_CURRENT_SESSION. Delegated scope `sessions:write`, the scope that already closes a device's or the account's sessions: a token that may close those may close the narrower one it rests on, and no delegation needs a new scope.",
        code: 'DELETE_CURRENT_SESSION',
        summary: 'Closes the session the calling credential rests on (its sign-out), and only that one.',
        tag,
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'sessions:write',
        errors: [sessionErrors.NO_CURRENT_SESSION, sessionErrors.SESSION_NOT_FOUND],
      },
      { params: AccountParams, response: { 204: closed } },
    ),
    async ({ params, principal }, reply) =>
      noContent(
        reply,
        sessions.closeCurrentSession(
          params.accountNumber,
          principal?.kind === 'operator' ? undefined : principal?.sessionId,
        ),
      ),
  );
}
