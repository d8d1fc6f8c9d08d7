import { defineErrors } from '../../core/errors.ts';

/** Registration e-mail requests. */
export const registrationErrors = defineErrors('client-api/registration', {
  REGISTRATION_RATE_LIMITED: [429, 'Too many registration requests; retry later.', ['retry-after']],
});
