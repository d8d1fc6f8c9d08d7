import type { App } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { ClientApi } from '../composition.ts';
import { operation } from '../openapi.ts';
import { deviceErrors } from './errors.ts';
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

const tag = 'devices';

const { ACCOUNT_NOT_FOUND } = accountErrors;
const { DEVICE_NOT_FOUND } = deviceErrors;

export function deviceRoutes(app: App, { guards, devices }: ClientApi): void {
  const access = { onRequest: [guards.authenticate, guards.requireAccount('accountNumber')] };

  app.get(
    '/accounts/:accountNumber/devices',
    {
      // The repository checks a device token's session with the list's own statement.
      onRequest: [guards.authenticateInStatement, guards.requireAccount('accountNumber')],
      schema: operation(
        {
          id: 'AccountManagement_GetValidDevicesAsync',
          code: 'GET_VALID_DEVICES',
          summary: "The account's devices.",
          tag,
          security: 'deviceOrOperator',
          delegated: 'devices:read',
          errors: [ACCOUNT_NOT_FOUND],
        },
        {
          params: AccountParams,
          querystring: QspQuery,
          response: { 200: DeviceList },
        },
      ),
    },
    async (request) => devices.list(request.params.accountNumber, request.principal),
  );

  app.delete(
    '/accounts/:accountNumber/devices',
    {
      ...access,
      schema: operation(
        {
          id: 'AccountManagement_DeleteMediaPlayersAsync',
          code: 'DELETE_DEVICES',
          summary: "Deletes the account's devices (of one class) that are outside their delete cool-down.",
          tag,
          security: 'deviceOrOperator',
          errors: [ACCOUNT_NOT_FOUND],
        },
        {
          params: AccountParams,
          querystring: DeleteQuery,
          response: { 204: { type: 'null', description: 'Deleted.' } },
        },
      ),
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
      schema: operation(
        {
          id: 'AccountManagement_GetPlayingDeviceIdsAsync',
          summary: 'Ids of the devices that saved a playback position within the playing window.',
          tag,
          security: 'deviceOrOperator',
          delegated: 'devices:read',
          errors: [ACCOUNT_NOT_FOUND],
        },
        {
          params: AccountParams,
          querystring: QspQuery,
          response: { 200: PlayingDeviceIds },
        },
      ),
    },
    async (request) => devices.playing(request.params.accountNumber),
  );

  app.get(
    '/accounts/:accountNumber/devices/:mediaPlayerId',
    {
      ...access,
      schema: operation(
        {
          id: 'AccountManagement_GetDeviceAsync',
          code: 'GET_DEVICES',
          summary: 'One device of the account.',
          tag,
          security: 'deviceOrOperator',
          delegated: 'devices:read',
          errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND],
        },
        {
          params: DeviceParams,
          querystring: QspQuery,
          response: { 200: DeviceBase },
        },
      ),
    },
    async (request) => devices.get(request.params.accountNumber, request.params.mediaPlayerId),
  );

  app.delete(
    '/accounts/:accountNumber/devices/:mediaPlayerId',
    {
      ...access,
      schema: operation(
        {
          id: 'AccountManagement_DeleteMediaPlayerAsync',
          code: 'DELETE_DEVICE',
          summary: 'Deletes a device and ends its sessions; 409 with Retry-After inside the cool-down.',
          tag,
          security: 'deviceOrOperator',
          errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND, deviceErrors.DEVICE_DELETE_COOLDOWN],
        },
        {
          params: DeviceParams,
          querystring: DeleteQuery,
          response: { 204: { type: 'null', description: 'Deleted.' } },
        },
      ),
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
      schema: operation(
        {
          id: 'AccountManagement_SetMediaPlayerEnabledAsync',
          code: 'SET_DEVICE_STATE',
          summary:
            'Enables (within MAX_DEVICES_PER_ACCOUNT) or disables a device; disabling ends its sessions.',
          tag,
          security: 'deviceOrOperator',
          delegated: 'devices:write',
          errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND, deviceErrors.DEVICE_LIMIT_REACHED],
        },
        {
          params: EnabledParams,
          querystring: QspQuery,
          response: { 204: { type: 'null', description: 'Done.' } },
        },
      ),
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
      schema: operation(
        {
          id: 'AccountManagement_GetMediaPlayerNameAsync',
          code: 'GET_DEVICE_NAME',
          summary: "The device's name.",
          tag,
          security: 'deviceOrOperator',
          delegated: 'devices:read',
          errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND],
        },
        {
          params: DeviceParams,
          querystring: QspQuery,
          response: { 200: DeviceName },
        },
      ),
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
      schema: operation(
        {
          id: 'AccountManagement_UpdateMediaPlayerNameAsync',
          code: 'SET_DEVICE_NAME',
          summary: 'Renames a device; the body is the bare new name.',
          tag,
          security: 'deviceOrOperator',
          delegated: 'devices:write',
          errors: [
            deviceErrors.DEVICE_NAME_REQUIRED,
            deviceErrors.DEVICE_NAME_TOO_LONG,
            ACCOUNT_NOT_FOUND,
            DEVICE_NOT_FOUND,
          ],
        },
        {
          params: DeviceParams,
          querystring: QspQuery,
          body: DeviceNameBody,
          response: { 200: DeviceName },
        },
      ),
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
