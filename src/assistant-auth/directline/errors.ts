import { defineErrors } from '../../core/errors.ts';

/**
 * Error types of the embedded Direct Line channel. Bad credentials are 403, as Direct Line answers them:
 * clients (botframework-directlinejs) read 403 as "get a new token".
 */
export const directLineErrors = defineErrors('assistant-auth/directline', {
  DIRECTLINE_CREDENTIALS_MISSING: [401, 'Send the channel secret or a token as `Authorization: Bearer …`.'],
  DIRECTLINE_CREDENTIALS_INVALID: [403, 'The token or secret is not valid.'],
  DIRECTLINE_TOKEN_EXPIRED: [403, 'The token has expired; get a new one.'],
  DIRECTLINE_SECRET_REQUIRED: [403, 'Only the channel secret may generate tokens.'],
  DIRECTLINE_TOKEN_REQUIRED: [403, 'Only a token can be refreshed.'],
  DIRECTLINE_CONVERSATION_MISMATCH: [403, 'This token belongs to another conversation.'],
  DIRECTLINE_CONVERSATION_NOT_FOUND: [
    404,
    'No such conversation (never started, or removed after retention).',
  ],
});
