import Type, { type Static } from 'typebox';
import { boundedString, Int64Id } from '../common-schemas.ts';

/** The highest stream limit an operator may give one account (PUT …/stream-limit/{limit}). */
export const STREAM_LIMIT_MAX = 20;

const deviceParams = {
  deviceClass: boundedString(24, {
    description: "Class of the playing device; a device token's own class only (else 403 DEVICE_MISMATCH).",
  }),
  deviceId: boundedString(48, {
    description: "The playing device; a device token's own deviceId only (else 403 DEVICE_MISMATCH).",
  }),
  userHash: boundedString(48, { description: "The user code of the device's account." }),
};

export const streamStopParams = Type.Object(deviceParams);

export const streamStartParams = Type.Object({ ...deviceParams, contentId: Int64Id });

export const streamStartQuery = Type.Object({
  offset: Type.Integer({
    minimum: 0,
    maximum: 2147483647,
    default: 0,
    description: 'Playback position in whole seconds (default 0).',
  }),
});

const time = (description: string) => Type.String({ format: 'date-time', description });

const streamProperties = {
  deviceId: Type.String(),
  deviceClass: Type.String(),
  name: Type.String({ description: "The device's name in its account." }),
  contentId: Int64Id,
  offset: Type.Integer({ description: 'Last reported position in whole seconds.' }),
  since: time('When the device started playing this content.'),
  reportedAt: time(
    'Last report (a start or a bookmark save by the device); the stream is over PLAYBACK_STALE_AFTER seconds after it.',
  ),
};

export const streamSchema = Type.Object(streamProperties, {
  xml: { name: 'Stream' },
  description: 'What one device of the account plays now.',
});

export const startedStreamSchema = Type.Object(
  {
    ...streamProperties,
    limit: Type.Integer({ description: 'Streams the account may play at once.' }),
    active: Type.Integer({ description: "The account's live streams, this one included." }),
  },
  { xml: { name: 'Stream' }, description: "The device's stream, with the account's limit and live streams." },
);

export const accountParams = Type.Object({
  accountNumber: boundedString(48, { description: 'Account number.' }),
});

export const watchingSchema = Type.Object(
  {
    limit: Type.Integer({ description: 'Streams the account may play at once.' }),
    streams: Type.Array(streamSchema, {
      xml: { name: 'Streams', wrapped: true },
      description: 'Live streams, the earliest started first.',
    }),
  },
  { xml: { name: 'Playback' }, description: "Who is watching: the account's live streams and its limit." },
);

export const streamLimitParams = Type.Object({
  accountNumber: accountParams.properties.accountNumber,
  limit: Type.Integer({
    minimum: 0,
    maximum: STREAM_LIMIT_MAX,
    description: `Streams the account may play at once (0-${STREAM_LIMIT_MAX}).`,
  }),
});

export const streamLimitSchema = Type.Object(
  { accountNumber: Type.String(), limit: Type.Integer() },
  { xml: { name: 'StreamLimit' }, description: "The account's stream limit." },
);

export type Stream = Static<typeof streamSchema>;
export type StartedStream = Static<typeof startedStreamSchema>;
export type Watching = Static<typeof watchingSchema>;
