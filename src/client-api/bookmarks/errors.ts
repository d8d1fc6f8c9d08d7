import { defineErrors } from '../../core/errors.ts';

/** Bookmarks (last playback positions). */
export const bookmarkErrors = defineErrors('client-api/bookmarks', {
  BOOKMARK_NOT_FOUND: [404, 'No bookmark is stored for this user and content.'],
  BOOKMARK_TIME_IN_FUTURE: [400, 'The time of the position (at) is too far in the future.'],
});
