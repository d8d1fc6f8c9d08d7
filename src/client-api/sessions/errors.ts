import { defineErrors } from '../../core/errors.ts';

/** Sessions of an account or device. */
export const sessionErrors = defineErrors('client-api/sessions', {
  SESSION_NOT_FOUND: [404, 'No open session matches in this account.'],
});
