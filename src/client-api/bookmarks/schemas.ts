import Type, { type Static } from 'typebox';
import { boundedString, Int64Id, PathDeviceClass } from '../common-schemas.ts';

/** A device clock this far ahead of ours is refused rather than allowed to pin a bookmark forever. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export const bookmarkReadParams = Type.Object({
  deviceClass: PathDeviceClass,
  userHash: boundedString(48, { description: 'The user code (GET /accounts/{n}/userHash).' }),
  contentId: Int64Id,
});

export const bookmarkReadQuery = Type.Object({
  accountNumber: Type.Optional(boundedString(48, { description: 'Only a bookmark saved for this account.' })),
  version: Type.Optional(boundedString(24, { description: 'Only a bookmark saved for this version.' })),
});

export const bookmarkSaveParams = Type.Object({
  deviceClass: boundedString(24, {
    description:
      "Class of the client device (at most 24); a device token's own class only (else 403 DEVICE_MISMATCH).",
  }),
  deviceId: boundedString(48, {
    description:
      "The device that saves the position; a device token's own deviceId only (else 403 DEVICE_MISMATCH).",
  }),
  userHash: boundedString(48),
  contentId: Int64Id,
  offset: Type.Integer({
    minimum: 0,
    maximum: 2147483647,
    description: 'Last playback position in whole seconds.',
  }),
});

export const bookmarkSaveQuery = Type.Object({
  at: Type.Optional(
    Type.String({
      format: 'date-time',
      description: `Client time of the position (ISO 8601), at most ${MAX_CLOCK_SKEW_MS / 1000} s ahead of the server's clock (else 400 BOOKMARK_TIME_IN_FUTURE). A save older than the stored bookmark is ignored (applied=false).`,
    }),
  ),
  version: Type.Optional(
    boundedString(24, { description: 'Version of the content the position refers to.' }),
  ),
});

export const bookmarkSchema = Type.Object(
  {
    userHash: Type.String(),
    contentId: Int64Id,
    offset: Type.Integer({ description: 'Last playback position in whole seconds.' }),
    accountNumber: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    deviceId: Type.String({ description: 'Device that saved the stored position.' }),
    deviceClass: Type.String(),
    at: Type.String({ format: 'date-time', description: 'Time of the stored position.' }),
    updatedAt: Type.String({ format: 'date-time', description: 'When the stored position was written.' }),
    applied: Type.Optional(
      Type.Boolean({
        description:
          'On save only: false when the save was older than the stored bookmark and changed nothing; the body is then the stored bookmark.',
      }),
    ),
  },
  { xml: { name: 'Bookmark' }, description: 'Last playback position of a content item.' },
);

export type Bookmark = Static<typeof bookmarkSchema>;

/** Most bookmarks one read of recent ones answers. */
export const RECENT_BOOKMARKS_MAX = 50;

export const recentBookmarksParams = Type.Object({
  accountNumber: boundedString(48, { description: 'Account number.' }),
});

export const recentBookmarksQuery = Type.Object({
  limit: Type.Integer({
    minimum: 1,
    maximum: RECENT_BOOKMARKS_MAX,
    default: 10,
    description: `How many bookmarks, newest first (1-${RECENT_BOOKMARKS_MAX}; default 10).`,
  }),
  contentId: Type.Optional({ ...Int64Id, description: 'Only the bookmark of this content item.' }),
});

export const recentBookmarksSchema = Type.Array(bookmarkSchema, {
  xml: { name: 'ArrayOfBookmark', wrapped: true },
  description: "The account user's bookmarks, the most recent position first.",
});
