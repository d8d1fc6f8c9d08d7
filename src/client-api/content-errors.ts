import { defineErrors } from '../core/errors.ts';

/**
 * Error types of bookmarks, ratings, registration e-mail, campaigns, subscriptions and ad info
 * (issue 5). Stable once published; listed in each route's response map.
 */
export const contentErrors = defineErrors({
  BOOKMARK_NOT_FOUND: [404, 'No bookmark is stored for this user and content.'],
  BOOKMARK_TIME_IN_FUTURE: [400, 'The time of the position (at) is too far in the future.'],
  RATING_USER_REQUIRED: [400, 'An operator must name the user (userId) whose rating this is.'],
  DEVICE_MISMATCH: [403, 'This token belongs to another device.'],
  USER_MISMATCH: [403, 'This token belongs to another user.'],
  ACCOUNT_MISMATCH: [403, 'This token belongs to another account.'],
  USER_NOT_FOUND: [404, 'No such user.'],
  HOMEZONE_NOT_SUBSCRIBED: [404, 'The account holds no home-zone subscription.'],
  REGISTRATION_RATE_LIMITED: [429, 'Too many registration requests; retry later.'],
});
