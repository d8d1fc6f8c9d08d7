import { defineErrors } from '../../core/errors.ts';

/** A gateway callback's ciphered `data` parameter is its credential: these are its refusals. */
export const callbackErrors = defineErrors('assistant-auth/callbacks', {
  CALLBACK_PARAMETER_MISSING: [401, 'The data parameter is missing.'],
  CALLBACK_PARAMETER_INVALID: [401, 'The data parameter is not valid.'],
  CALLBACK_PARAMETER_EXPIRED: [401, 'The data parameter has expired.'],
  CALLBACK_PARAMETER_REPLAYED: [401, 'The data parameter has already been used.'],
});
