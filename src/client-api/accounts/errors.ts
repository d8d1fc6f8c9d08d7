import { defineErrors } from '../../core/errors.ts';

/** The client API's account errors. */
export const accountErrors = defineErrors('client-api/accounts', {
  ACCOUNT_NOT_FOUND: [404, 'No such account.'],
});
