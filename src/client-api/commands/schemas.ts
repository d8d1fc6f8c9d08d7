import Type, { type Static } from 'typebox';
import { boundedString, Int64Id, PathDeviceClass } from '../common-schemas.ts';
import { AccountNumber, MediaPlayerId } from '../devices/schemas.ts';

export const commandTypes = ['stop', 'pause', 'resume', 'play'] as const;

const CommandId = boundedString(40, { description: 'The command id (answered by the send).' });

export const SendCommandParams = Type.Object({ accountNumber: AccountNumber, mediaPlayerId: MediaPlayerId });
export const CommandParams = Type.Object({
  accountNumber: AccountNumber,
  mediaPlayerId: MediaPlayerId,
  commandId: CommandId,
});
export const DeviceStreamParams = Type.Object({
  deviceClass: PathDeviceClass,
  deviceId: boundedString(48, { description: "The device: a device token's own only (else 403)." }),
});
export const AckParams = Type.Object({
  deviceClass: PathDeviceClass,
  deviceId: boundedString(48, { description: "The device: a device token's own only (else 403)." }),
  commandId: CommandId,
});
export const StreamQuery = Type.Object({
  t: Type.Optional(
    boundedString(1024, {
      description:
        'A stream ticket (POST …/commands/ticket), for a client that cannot send Authorization (a browser EventSource).',
    }),
  ),
  lastEventId: Type.Optional(
    boundedString(40, { description: 'As the Last-Event-ID header, for a ticket URL: resume after it.' }),
  ),
});

export const SendCommandBody = Type.Object(
  {
    // An enum of strings, not a union: Swagger 2 has no anyOf.
    type: Type.Unsafe<(typeof commandTypes)[number]>({
      type: 'string',
      enum: [...commandTypes],
      description: 'What the device is told: stop, pause, resume, or play (contentId from offset).',
    }),
    contentId: Type.Optional({ ...Int64Id, description: 'play only (required there): what to play.' }),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 2147483647, description: 'play: where to start, in seconds.' }),
    ),
  },
  { xml: { name: 'DeviceCommand' }, description: 'A command to a device.' },
);
export type SendCommand = Static<typeof SendCommandBody>;

export const Command = Type.Object(
  {
    id: Type.String(),
    mediaPlayerId: Type.String({ description: 'The device told.' }),
    type: Type.String({ description: 'stop, pause, resume or play.' }),
    contentId: Type.Optional(Int64Id),
    offset: Type.Optional(Type.Integer()),
    state: Type.String({
      description:
        'sent (stored, not written to a stream yet), delivered (written to the device stream), acknowledged (the device said it obeyed), or expired (not acknowledged within COMMAND_TTL).',
    }),
    sentAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
    deliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
    acknowledgedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { xml: { name: 'DeviceCommandStatus' }, description: 'A command sent to a device, and how far it got.' },
);
export type CommandValue = Static<typeof Command>;

export const StreamTicket = Type.Object(
  {
    ticket: Type.String({ description: 'The `t` of the stream URL.' }),
    streamUrl: Type.String({ description: 'The command stream with the ticket, for an EventSource.' }),
    expiresIn: Type.Integer({ description: 'Seconds the ticket may open a stream in.' }),
  },
  { xml: { name: 'CommandStreamTicket' }, description: 'A short-lived ticket to open the command stream.' },
);
