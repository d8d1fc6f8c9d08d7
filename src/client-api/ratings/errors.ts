import { defineErrors } from '../../core/errors.ts';

/** Ratings of content items. */
export const ratingErrors = defineErrors('client-api/ratings', {
  RATING_USER_REQUIRED: [400, 'An operator must name the user (userId) whose rating this is.'],
});
