import Type, { type Static } from 'typebox';
import { Command } from '../commands/schemas.ts';
import { Int64Id } from '../common-schemas.ts';
import { AccountNumber, MediaPlayerId } from '../devices/schemas.ts';

export const HandoffParams = Type.Object({ accountNumber: AccountNumber });

export const HandoffBody = Type.Object(
  {
    from: { ...MediaPlayerId, description: 'The device playing now (its mediaPlayerId).' },
    to: { ...MediaPlayerId, description: 'The device to go on playing on (its mediaPlayerId).' },
  },
  { xml: { name: 'PlaybackHandoff' }, description: 'Which device hands its playback to which.' },
);
export type HandoffRequest = Static<typeof HandoffBody>;

export const Handoff = Type.Object(
  {
    contentId: { ...Int64Id, description: 'What goes on playing.' },
    offset: Type.Integer({ description: "Where, in seconds: the source's last reported position." }),
    from: Type.Object(
      { deviceId: Type.String(), command: Type.Optional(Command) },
      {
        description:
          'The source: its stream is over; `command` is the stop it was sent, absent when it could not be told (no command stream, or its commands limited).',
      },
    ),
    to: Type.Object(
      { deviceId: Type.String(), command: Command },
      { description: 'The target: the stream is now its own, and `command` the play it was sent.' },
    ),
  },
  { xml: { name: 'PlaybackHandoffResult' }, description: 'A handoff under way.' },
);
export type HandoffValue = Static<typeof Handoff>;
