import { defineErrors } from '../../core/errors.ts';

export const chatPageErrors = defineErrors('assistant-auth/chat-page', {
  CHAT_ASSET_NOT_FOUND: [404, 'The chat page has no such file.'],
  CHAT_SIGN_IN_FAILED: [401, 'The user name or password is not right.', ['www-authenticate']],
  CHAT_NOT_SIGNED_IN: [
    409,
    'This conversation speaks for nobody signed in on the chat page: there is no sign-in to end.',
  ],
  CHAT_DEVICE_REFUSED: [
    409,
    'The chat page cannot sign in as a device of this account: it is disabled there, or the account holds the most devices it may.',
  ],
});
