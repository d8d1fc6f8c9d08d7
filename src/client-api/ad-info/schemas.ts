import Type, { type Static } from 'typebox';
import { boundedString, PathDeviceClass } from '../common-schemas.ts';

import { type ContentsType, contentsTypes } from './contents-types.ts';

export { type ContentsType, contentsTypes };

/** Contents that never carry inserted ads (204): a linear channel's breaks are its broadcaster's, and a commercial is itself the ad. */
export const adFreeContents: readonly ContentsType[] = ['Channels', 'Commercials'];

export const adInfoParams = Type.Object({
  deviceClass: PathDeviceClass,
  contents: Type.Unsafe<ContentsType>({
    type: 'string',
    enum: [...contentsTypes],
    description: 'Kind of content.',
  }),
  contentId: boundedString(24, { description: 'Content id (at most 24).' }),
});

const strictBoolean = (description: string) =>
  Type.Optional(Type.Boolean({ description: `${description} (true or false).` }));

export const adInfoQuery = Type.Object({
  profile: Type.String({
    minLength: 1,
    maxLength: 24,
    default: 'anonimo',
    description: 'Viewer profile (default anonimo).',
  }),
  campaign: Type.Optional(boundedString(24)),
  campaignId: Type.Optional(boundedString(24)),
  isKidProfile: strictBoolean('A kids profile: non-personalised, child-safe ads only'),
  isRental: strictBoolean('Rented content: carries no ads'),
  withTvRights: strictBoolean('Content under TV broadcast rights'),
  forceFullHd: strictBoolean('Ask for full-HD ad renditions'),
});

export const adBreakSchema = Type.Object(
  {
    position: Type.Unsafe<'preroll' | 'midroll' | 'postroll'>({
      type: 'string',
      enum: ['preroll', 'midroll', 'postroll'],
    }),
    offset: Type.Integer({
      minimum: 0,
      description: 'Seconds into the content (0 for pre-roll; ignored for post-roll).',
    }),
    maxAds: Type.Integer({ minimum: 1, maximum: 10, description: 'Most ads in the break.' }),
  },
  { xml: { name: 'AdBreak' } },
);

export const adInfoSchema = Type.Object(
  {
    contentId: Type.String(),
    contents: Type.String(),
    deviceClass: Type.String(),
    profile: Type.String(),
    personalised: Type.Boolean({
      description: 'Whether ads may be targeted at the profile (false for anonimo and kids).',
    }),
    adBreaks: Type.Array(adBreakSchema, { xml: { name: 'AdBreaks', wrapped: true } }),
    vastUrl: Type.Optional(
      Type.String({
        description: 'VAST tag URL to request the ads of the breaks from; absent when there is no break.',
      }),
    ),
  },
  {
    xml: { name: 'AdInfo' },
    description: 'Where ads go in a content item and where they come from.',
  },
);

export type AdInfoQuery = Static<typeof adInfoQuery>;
export type AdBreak = Static<typeof adBreakSchema>;
export type AdInfo = Static<typeof adInfoSchema>;
