import { defineErrors } from '../../core/errors.ts';

/** What the assistant-user operations answer beyond the family's common errors. */
export const userErrors = defineErrors('assistant-auth/users', {
  USER_NOT_FOUND: [404, 'No assistant user has this assistantId.'],
  ASSISTANT_ID_EXPIRED: [410, 'This assistantId has expired; authenticate again.'],
  ASSISTANT_ID_GLOBAL_NOT_FOUND: [404, 'No valid assistantId of this channel for this assistantIdGlobal.'],
  PHONE_NUMBER_NOT_FOUND: [404, 'No assistant user holds this phone number.'],
  ASSISTANT_USER_NOT_LINKED: [
    409,
    'This assistant user is not linked to a pay-TV account; the person links it through the gateway first.',
  ],
  ASSISTANT_USER_SIGNED_OUT: [
    409,
    'The sign-in this assistant user’s link rests on has ended (signed out); the person signs in again.',
  ],
});
