import type { TSchema } from 'typebox';
import type { RouteSchema } from '../../core/http/route-errors.ts';
import { type App, noContent } from '../../core/http/service-app.ts';
import { refusesNul } from '../../core/http/validation.ts';
import type { Declaration } from '../access.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { ClientApi } from '../composition.ts';
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
  SignedInDeviceIds,
} from './schemas.ts';

const { ACCOUNT_NOT_FOUND } = accountErrors;
const { DEVICE_NOT_FOUND } = deviceErrors;

export function deviceRoutes(app: App, { access, devices }: Pick<ClientApi, 'access' | 'devices'>): void {
  /** A device operation: tagged `devices`, for the account's own token or an operator key. */
  const deviceOperation = <S extends RouteSchema>(
    header: Omit<Declaration, 'tag' | 'security' | 'owner'>,
    schema: S,
  ) =>
    access.route({ ...header, tag: 'devices', security: 'deviceOrOperator', owner: 'accountNumber' }, schema);

  /** A read of one device of the account, which the assistant may do with `devices:read`. */
  const deviceRead = <R extends TSchema>(
    header: { id: string; code: string; summary: string; description: string },
    answer: R,
  ) =>
    deviceOperation(
      { ...header, delegated: 'devices:read', errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND] },
      { params: DeviceParams, querystring: QspQuery, response: { 200: answer } },
    );

  app.get(
    '/accounts/:accountNumber/devices',
    deviceOperation(
      {
        id: 'AccountManagement_GetValidDevicesAsync',
        description:
          "Lists the account's devices: id, name, class, enabled flag, first and last sign-in, and whether each saved a playback position within PLAYING_WINDOW. 404 for an unknown account.",
        code: 'GET_VALID_DEVICES',
        summary: "The account's devices.",
        delegated: 'devices:read',
        errors: [ACCOUNT_NOT_FOUND],
      },
      {
        params: AccountParams,
        querystring: QspQuery,
        response: { 200: DeviceList },
      },
    ),
    async (request) => devices.list(request.params.accountNumber),
  );

  app.delete(
    '/accounts/:accountNumber/devices',
    deviceOperation(
      {
        id: 'AccountManagement_DeleteMediaPlayersAsync',
        description:
          "Deletes the account's devices of the given class (every class when none is given) that are past DEVICE_DELETE_COOLDOWN since activation; devices still inside it are kept. Each deleted device's sessions end, so its tokens are refused from the next request.",
        code: 'DELETE_DEVICES',
        summary: "Deletes the account's devices (of one class) that are outside their delete cool-down.",
        errors: [ACCOUNT_NOT_FOUND],
      },
      {
        params: AccountParams,
        querystring: DeleteQuery,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
    ),
    async ({ params, query }, reply) =>
      noContent(reply, devices.removeAll(params.accountNumber, query.deviceClass)),
  );

  // Registered before /devices/:mediaPlayerId so the literal segment wins (find-my-way prefers static anyway).
  app.get(
    '/accounts/:accountNumber/devices/playing',
    deviceOperation(
      {
        id: 'AccountManagement_GetPlayingDeviceIdsAsync',
        description:
          "Answers the ids of the account's devices that saved a playback position within PLAYING_WINDOW: what is playing on the account now. 404 for an unknown account.",
        summary: 'Ids of the devices that saved a playback position within the playing window.',
        delegated: 'devices:read',
        errors: [ACCOUNT_NOT_FOUND],
      },
      {
        params: AccountParams,
        querystring: QspQuery,
        response: { 200: PlayingDeviceIds },
      },
    ),
    async (request) => devices.playing(request.params.accountNumber),
  );

  app.get(
    '/accounts/:accountNumber/devices/signed-in',
    deviceOperation(
      {
        id: 'AccountManagement_GetSignedInDeviceIdsAsync',
        description:
          "Answers the ids of the account's devices holding at least one open session: not closed by a sign-out, a deletion or a disable, and used within SESSION_IDLE_TIMEOUT.",
        summary:
          'Ids of the devices signed in: with a session that is neither closed (signed out) nor idle past SESSION_IDLE_TIMEOUT.',
        delegated: 'devices:read',
        errors: [ACCOUNT_NOT_FOUND],
      },
      {
        params: AccountParams,
        querystring: QspQuery,
        response: { 200: SignedInDeviceIds },
      },
    ),
    async (request) => devices.signedIn(request.params.accountNumber),
  );

  app.get(
    '/accounts/:accountNumber/devices/:mediaPlayerId',
    deviceRead(
      {
        id: 'AccountManagement_GetDeviceAsync',
        description:
          'Answers one device of the account: id, name, class, enabled flag, first and last sign-in, and whether it is playing. 404 when the account or the device is unknown.',
        code: 'GET_DEVICES',
        summary: 'One device of the account.',
      },
      DeviceBase,
    ),
    async (request) => devices.get(request.params.accountNumber, request.params.mediaPlayerId),
  );

  app.delete(
    '/accounts/:accountNumber/devices/:mediaPlayerId',
    deviceOperation(
      {
        id: 'AccountManagement_DeleteMediaPlayerAsync',
        description:
          'Deletes one device of the account and closes its sessions at once. Inside DEVICE_DELETE_COOLDOWN after its activation the answer is 409 DEVICE_DELETE_COOLDOWN with Retry-After, the seconds left.',
        code: 'DELETE_DEVICE',
        summary: 'Deletes a device and ends its sessions; 409 with Retry-After inside the cool-down.',
        errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND, deviceErrors.DEVICE_DELETE_COOLDOWN],
      },
      {
        params: DeviceParams,
        querystring: DeleteQuery,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
    ),
    async ({ params, query }, reply) =>
      noContent(reply, devices.remove(params.accountNumber, params.mediaPlayerId, query.deviceClass)),
  );

  app.put(
    '/accounts/:accountNumber/devices/:mediaPlayerId/enabled/:enabled',
    deviceOperation(
      {
        id: 'AccountManagement_SetMediaPlayerEnabledAsync',
        description:
          "Sets a device's enabled flag from the path's `true` or `false`. Enabling beyond MAX_DEVICES_PER_ACCOUNT enabled devices is 409 DEVICE_LIMIT_REACHED; disabling closes the device's sessions, so its tokens are refused from the next request.",
        code: 'SET_DEVICE_STATE',
        summary:
          'Enables (within MAX_DEVICES_PER_ACCOUNT) or disables a device; disabling ends its sessions.',
        delegated: 'devices:write',
        errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND, deviceErrors.DEVICE_LIMIT_REACHED],
      },
      {
        params: EnabledParams,
        querystring: QspQuery,
        response: { 204: { type: 'null', description: 'Done.' } },
      },
    ),
    async ({ params }, reply) =>
      noContent(
        reply,
        devices.setEnabled(params.accountNumber, params.mediaPlayerId, params.enabled === 'true'),
      ),
  );

  app.get(
    '/accounts/:accountNumber/devices/:mediaPlayerId/name',
    deviceRead(
      {
        id: 'AccountManagement_GetMediaPlayerNameAsync',
        description:
          "Answers the device's id and the name its user gave it. 404 when the account or the device is unknown.",
        code: 'GET_DEVICE_NAME',
        summary: "The device's name.",
      },
      DeviceName,
    ),
    async (request) => {
      const device = await devices.get(request.params.accountNumber, request.params.mediaPlayerId);
      return { mediaPlayerId: device.mediaPlayerId, name: device.name };
    },
  );

  app.put(
    '/accounts/:accountNumber/devices/:mediaPlayerId/name',
    {
      // The body's limits are checked by the service so that the error names them (REQUIRED / TOO_LONG).
      attachValidation: true,
      ...deviceOperation(
        {
          id: 'AccountManagement_UpdateMediaPlayerNameAsync',
          description:
            "Replaces the device's name with the body, a bare string (a JSON string, `<string>` in XML) of 1 to 64 characters: DEVICE_NAME_REQUIRED or DEVICE_NAME_TOO_LONG (400) otherwise.",
          code: 'SET_DEVICE_NAME',
          summary: 'Renames a device; the body is the bare new name.',
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
      // The rule on text (NUL) is not the service's to word: it is refused as every route refuses it.
      if (failure && (failure.validationContext !== 'body' || notAString || refusesNul(failure)))
        throw failure;
      return devices.rename(request.params.accountNumber, request.params.mediaPlayerId, request.body);
    },
  );
}
