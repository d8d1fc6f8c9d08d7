import { defineErrors } from '../../core/errors.ts';

/** Users of the pay-TV platform. */
export const userErrors = defineErrors('client-api/users', {
  USER_NOT_FOUND: [404, 'No such user.'],
});
