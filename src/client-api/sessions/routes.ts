import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { AccountParams, DeviceParams, QspQuery } from '../devices/schemas.ts';
import { operation } from '../openapi.ts';
import { createSessionService } from './service.ts';

const tag = 'sessions';
const closed = {
  type: 'null',
  description: 'Sessions closed; their tokens are refused from now on.',
} as const;

export function registerSessionRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, repositories } = deps;
  const sessions = createSessionService(deps.accountService, repositories.devices, repositories.sessions);
  const access = { onRequest: [guards.authenticate, guards.requireAccount('accountNumber')] };

  app.delete(
    '/accounts/:accountNumber/sessions',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_TearDownSessionsAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND', 'SESSION_NOT_FOUND'] },
          code: 'DELETE_SESSIONS',
          summary: "Closes the account's sessions of one qspVersion (All: every one).",
          tag,
          security: 'deviceOrOperator',
        }),
        params: AccountParams,
        querystring: QspQuery,
        response: { 204: closed, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await sessions.closeAccountSessions(request.params.accountNumber, request.query.qspVersion);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/accounts/:accountNumber/devices/:mediaPlayerId/sessions',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_TearDownDeviceSessionsAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND', 'DEVICE_NOT_FOUND', 'SESSION_NOT_FOUND'] },
          code: 'DELETE_DEVICE_SESSIONS',
          summary: "Closes one device's sessions of one qspVersion (All: every one).",
          tag,
          security: 'deviceOrOperator',
        }),
        params: DeviceParams,
        querystring: QspQuery,
        response: { 204: closed, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { accountNumber, mediaPlayerId } = request.params;
      await sessions.closeDeviceSessions(accountNumber, mediaPlayerId, request.query.qspVersion);
      return reply.code(204).send(null);
    },
  );
}
