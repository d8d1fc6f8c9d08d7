import { defineErrors } from '../core/errors.ts';

/** Error types of assistant-auth (area B), beyond the family's common ones. */
export const assistantErrors = defineErrors('assistant-auth/users', {
  USER_NOT_FOUND: [404, 'No assistant user has this assistantId.'],
  ASSISTANT_ID_EXPIRED: [410, 'This assistantId has expired; authenticate again.'],
  ASSISTANT_ID_GLOBAL_NOT_FOUND: [404, 'No valid assistantId of this channel for this assistantIdGlobal.'],
  PHONE_NUMBER_NOT_FOUND: [404, 'No assistant user holds this phone number.'],
  CALLBACK_PARAMETER_INVALID: [401, 'The data parameter is not valid.'],
  CALLBACK_PARAMETER_EXPIRED: [401, 'The data parameter has expired.'],
  CALLBACK_PARAMETER_REPLAYED: [401, 'The data parameter has already been used.'],
});
