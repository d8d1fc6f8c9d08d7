import { defineErrors } from '../../core/errors.ts';

/** Device authentication, and what a device token may act on. */
export const authenticationErrors = defineErrors('client-api/auth', {
  CREDENTIALS_INVALID: [401, 'The user name or password is wrong.', ['www-authenticate']],
  LOGIN_THROTTLED: [429, 'Too many failed sign-ins; retry later.', ['retry-after']],
  REFRESH_TOKEN_INVALID: [401, 'The refresh token is invalid, expired, already used or revoked.'],
  DEVICE_MISMATCH: [403, 'This token belongs to another device.'],
  USER_MISMATCH: [403, 'This token belongs to another user.'],
  ACCOUNT_MISMATCH: [403, 'This token belongs to another account.'],
});
