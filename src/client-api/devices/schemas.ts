import Type, { type Static } from 'typebox';
import { boundedString, pathBoolean, QspVersion } from '../common-schemas.ts';

/** Longest device name (published in the OpenAPI document as the body's maxLength); longer is 400. */
export const DEVICE_NAME_MAX_LENGTH = 64;

export const AccountNumber = boundedString(48, { description: 'Account number.' });
export const MediaPlayerId = boundedString(48, {
  description: 'Device (media player) id within the account.',
});

export const DeviceBase = Type.Object(
  {
    mediaPlayerId: Type.String({ description: 'Device id within the account.' }),
    name: Type.String({ description: 'Name the user gave the device.' }),
    deviceClass: Type.String({ description: 'Class of device (e.g. smarttv, android, web).' }),
    enabled: Type.Boolean({ description: 'Disabled devices cannot sign in or use tokens.' }),
    registeredAt: Type.String({ format: 'date-time', description: 'First sign-in.' }),
    lastSeenAt: Type.String({ format: 'date-time', description: 'Last sign-in, token refresh or playback.' }),
    playing: Type.Boolean({ description: 'Saved a playback position within PLAYING_WINDOW.' }),
  },
  { xml: { name: 'DeviceBase' }, description: 'A device (media player) of an account.' },
);
export type DeviceBaseValue = Static<typeof DeviceBase>;

export const DeviceList = Type.Array(DeviceBase, { xml: { name: 'ArrayOfDeviceBase', wrapped: true } });

export const PlayingDeviceIds = Type.Array(Type.String({ xml: { name: 'string' } }), {
  xml: { name: 'ArrayOfString', wrapped: true },
  description: 'Ids of the devices that are playing.',
});

export const SignedInDeviceIds = Type.Array(Type.String({ xml: { name: 'string' } }), {
  xml: { name: 'ArrayOfString', wrapped: true },
  description: 'Ids of the devices that are signed in.',
});

export const DeviceName = Type.Object(
  { mediaPlayerId: Type.String(), name: Type.String() },
  { xml: { name: 'DeviceName' }, description: 'The name of a device.' },
);

/** The bare string body of PUT …/name; the limits are checked by the service to name the error type. */
export const DeviceNameBody = Type.String({
  minLength: 1,
  maxLength: DEVICE_NAME_MAX_LENGTH,
  description: `The new name: 1-${DEVICE_NAME_MAX_LENGTH} characters (DEVICE_NAME_REQUIRED / DEVICE_NAME_TOO_LONG otherwise). In XML: <string>…</string>.`,
});

export const AccountParams = Type.Object({ accountNumber: AccountNumber });
export const DeviceParams = Type.Object({ accountNumber: AccountNumber, mediaPlayerId: MediaPlayerId });
export const EnabledParams = Type.Object({
  accountNumber: AccountNumber,
  mediaPlayerId: MediaPlayerId,
  enabled: pathBoolean('true or false.'),
});

export const QspQuery = Type.Object({ qspVersion: QspVersion });
export const DeleteQuery = Type.Object({
  qspVersion: QspVersion,
  deviceClass: Type.Optional(boundedString(24, { description: 'Only devices of this class.' })),
});
