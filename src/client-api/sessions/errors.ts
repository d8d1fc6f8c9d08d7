import { defineErrors } from '../../core/errors.ts';

/** Sessions of an account or device. */
export const sessionErrors = defineErrors('client-api/sessions', {
  SESSION_NOT_FOUND: [404, 'No open session matches in this account.'],
  NO_CURRENT_SESSION: [
    409,
    'These credentials rest on no session of their own to close: an operator key, or a delegated token of a link no sign-in made.',
  ],
});
