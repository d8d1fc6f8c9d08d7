import { defineErrors } from '../core/errors.ts';

/** Area A's error types for accounts, devices, sessions, users and device authentication. */
export const accountErrors = defineErrors({
  ACCOUNT_NOT_FOUND: [404, 'No such account.'],
  DEVICE_NOT_FOUND: [404, 'No such device in this account.'],
  SESSION_NOT_FOUND: [404, 'No open session matches in this account.'],
  USER_NOT_FOUND: [404, 'No user has this e-mail address.'],
  DEVICE_DELETE_COOLDOWN: [409, 'The device was activated too recently to be deleted; retry later.'],
  DEVICE_LIMIT_REACHED: [409, 'The account already holds the most enabled devices it may.'],
  DEVICE_DISABLED: [403, 'This device is disabled in its account.'],
  DEVICE_NAME_TOO_LONG: [400, 'The device name is too long.'],
  DEVICE_NAME_REQUIRED: [400, 'A device name is required.'],
  CREDENTIALS_INVALID: [401, 'The user name or password is wrong.'],
  REFRESH_TOKEN_INVALID: [401, 'The refresh token is invalid, expired, already used or revoked.'],
});
