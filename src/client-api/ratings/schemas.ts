import Type, { type Static } from 'typebox';
import { boundedString, Int64Id, PathDeviceClass } from '../common-schemas.ts';

/** The published scale: whole stars from 1 to 5 (docs/decisions.md). */
export const RATING_MIN = 1;
export const RATING_MAX = 5;

export const ratingParams = Type.Object({
  deviceClass: PathDeviceClass,
  module: boundedString(48, { description: 'Catalogue module the content belongs to.' }),
  contentId: Int64Id,
  rating: Type.Integer({
    minimum: RATING_MIN,
    maximum: RATING_MAX,
    format: 'int32',
    description: `The user's rating, ${RATING_MIN} to ${RATING_MAX}.`,
  }),
});

export const ratingQuery = Type.Object({
  userId: Type.Optional(
    boundedString(64, {
      description:
        "platformUserId of the rating user: a device token's own user (or omitted); required for operators.",
    }),
  ),
  accountNumber: Type.Optional(boundedString(48, { description: "The rating user's account." })),
});

export const ratingSchema = Type.Object(
  {
    module: Type.String(),
    contentId: Int64Id,
    userId: Type.String({ description: 'platformUserId of the user who rated.' }),
    rating: Type.Integer({ description: "The user's rating." }),
    average: Type.Number({ description: 'Average rating of the content over all users.' }),
    count: Type.Integer({ description: 'Number of users who rated the content.' }),
  },
  { xml: { name: 'Rating' }, description: "A user's rating and the content's totals." },
);

export type Rating = Static<typeof ratingSchema>;
