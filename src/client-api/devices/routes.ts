import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { operation } from '../openapi.ts';
import {
  AccountParams,
  DeleteQuery,
  DeviceBase,
  DeviceList,
  DeviceName,
  DeviceNameBody,
  DeviceParams,
  EnabledParams,
  PlayingDeviceIds,
  QspQuery,
} from './schemas.ts';
import { createDeviceService } from './service.ts';

const tag = 'devices';

export function registerDeviceRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, repositories } = deps;
  const devices = createDeviceService(
    deps.core.config,
    deps.accountService,
    repositories.devices,
    repositories.sessions,
  );
  const access = { onRequest: [guards.authenticate, guards.requireAccount('accountNumber')] };

  app.get(
    '/accounts/:accountNumber/devices',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_GetValidDevicesAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND'] },
          code: 'GET_VALID_DEVICES',
          summary: "The account's devices.",
          tag,
          security: 'deviceOrOperator',
        }),
        params: AccountParams,
        querystring: QspQuery,
        response: { 200: DeviceList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => devices.list(request.params.accountNumber),
  );

  app.delete(
    '/accounts/:accountNumber/devices',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_DeleteMediaPlayersAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND'] },
          code: 'DELETE_DEVICES',
          summary: "Deletes the account's devices (of one class) that are outside their delete cool-down.",
          tag,
          security: 'deviceOrOperator',
        }),
        params: AccountParams,
        querystring: DeleteQuery,
        response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await devices.removeAll(request.params.accountNumber, request.query.deviceClass);
      return reply.code(204).send(null);
    },
  );

  // Registered before /devices/:mediaPlayerId so the literal segment wins (find-my-way prefers static anyway).
  app.get(
    '/accounts/:accountNumber/devices/playing',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_GetPlayingDeviceIdsAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND'] },
          summary: 'Ids of the devices that saved a playback position within the playing window.',
          tag,
          security: 'deviceOrOperator',
        }),
        params: AccountParams,
        querystring: QspQuery,
        response: { 200: PlayingDeviceIds, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => devices.playing(request.params.accountNumber),
  );

  app.get(
    '/accounts/:accountNumber/devices/:mediaPlayerId',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_GetDeviceAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND', 'DEVICE_NOT_FOUND'] },
          code: 'GET_DEVICES',
          summary: 'One device of the account.',
          tag,
          security: 'deviceOrOperator',
        }),
        params: DeviceParams,
        querystring: QspQuery,
        response: { 200: DeviceBase, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => devices.get(request.params.accountNumber, request.params.mediaPlayerId),
  );

  app.delete(
    '/accounts/:accountNumber/devices/:mediaPlayerId',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_DeleteMediaPlayerAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND', 'DEVICE_NOT_FOUND'], 409: ['DEVICE_DELETE_COOLDOWN'] },
          code: 'DELETE_DEVICE',
          summary: 'Deletes a device and ends its sessions; 409 with Retry-After inside the cool-down.',
          tag,
          security: 'deviceOrOperator',
        }),
        params: DeviceParams,
        querystring: DeleteQuery,
        response: {
          204: { type: 'null', description: 'Deleted.' },
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { accountNumber, mediaPlayerId } = request.params;
      await devices.remove(accountNumber, mediaPlayerId, request.query.deviceClass);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/accounts/:accountNumber/devices/:mediaPlayerId/enabled/:enabled',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_SetMediaPlayerEnabledAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND', 'DEVICE_NOT_FOUND'], 409: ['DEVICE_LIMIT_REACHED'] },
          code: 'SET_DEVICE_STATE',
          summary:
            'Enables (within MAX_DEVICES_PER_ACCOUNT) or disables a device; disabling ends its sessions.',
          tag,
          security: 'deviceOrOperator',
        }),
        params: EnabledParams,
        querystring: QspQuery,
        response: { 204: { type: 'null', description: 'Done.' }, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { accountNumber, mediaPlayerId, enabled } = request.params;
      await devices.setEnabled(accountNumber, mediaPlayerId, enabled === 'true');
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/accounts/:accountNumber/devices/:mediaPlayerId/name',
    {
      ...access,
      schema: {
        ...operation({
          id: 'AccountManagement_GetMediaPlayerNameAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND', 'DEVICE_NOT_FOUND'] },
          code: 'GET_DEVICE_NAME',
          summary: "The device's name.",
          tag,
          security: 'deviceOrOperator',
        }),
        params: DeviceParams,
        querystring: QspQuery,
        response: { 200: DeviceName, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const device = await devices.get(request.params.accountNumber, request.params.mediaPlayerId);
      return { mediaPlayerId: device.mediaPlayerId, name: device.name };
    },
  );

  app.put(
    '/accounts/:accountNumber/devices/:mediaPlayerId/name',
    {
      ...access,
      // The body's limits are checked by the service so that the error names them (REQUIRED / TOO_LONG).
      attachValidation: true,
      schema: {
        ...operation({
          id: 'AccountManagement_UpdateMediaPlayerNameAsync',
          errors: {
            400: ['DEVICE_NAME_REQUIRED', 'DEVICE_NAME_TOO_LONG'],
            404: ['ACCOUNT_NOT_FOUND', 'DEVICE_NOT_FOUND'],
          },
          code: 'SET_DEVICE_NAME',
          summary: 'Renames a device; the body is the bare new name.',
          tag,
          security: 'deviceOrOperator',
        }),
        params: DeviceParams,
        querystring: QspQuery,
        body: DeviceNameBody,
        response: { 200: DeviceName, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const failure = request.validationError;
      const body: unknown = request.body;
      const notAString = body !== undefined && body !== null && typeof body !== 'string';
      if (failure && (failure.validationContext !== 'body' || notAString)) throw failure;
      return devices.rename(request.params.accountNumber, request.params.mediaPlayerId, request.body);
    },
  );
}
