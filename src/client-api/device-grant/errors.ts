import { defineErrors, type ErrorSpec } from '../../core/errors.ts';

/** The TV sign-in with a code (the OAuth device authorization grant) and its approval. */
export const deviceGrantErrors = defineErrors('client-api/device-grant', {
  OAUTH_REQUEST_INVALID: [400, 'The request is missing a parameter, repeats one or has a bad value.'],
  OAUTH_CLIENT_UNKNOWN: [400, 'The client_id is not a known device class.'],
  OAUTH_GRANT_TYPE_UNSUPPORTED: [400, 'Only the device_code grant type is supported here.'],
  DEVICE_CODE_INVALID: [400, 'The device_code is unknown, already used or of another client.'],
  AUTHORIZATION_PENDING: [400, 'The person has not approved this sign-in yet; poll again.'],
  POLLING_TOO_FAST: [400, 'Polling too fast: wait 5 seconds more between polls from now on.'],
  SIGN_IN_DENIED: [400, 'The sign-in was refused.'],
  DEVICE_CODE_EXPIRED: [400, 'The code expired; start over with a new one.'],
  PENDING_SIGN_INS_LIMITED: [
    429,
    'Too many sign-in codes are waiting or were refused from this address; retry later.',
    ['retry-after'],
  ],
  SIGN_INS_BUSY: [503, 'Too many TV sign-ins are waiting overall; retry later.', ['retry-after']],
  USER_CODE_INVALID: [404, 'No TV sign-in is waiting with this code.'],
  USER_CODE_THROTTLED: [429, 'Too many wrong codes; retry later.', ['retry-after']],
  SIGN_IN_REFUSALS_LIMITED: [
    429,
    'This account refused too many TV sign-ins lately; the code expires on its own, or retry later.',
    ['retry-after'],
  ],
});

const e = deviceGrantErrors;

/**
 * The OAuth `error` code (RFC 6749 section 5.2, RFC 8628 section 3.5) of each family error type the
 * authorization server endpoints answer; anything else there is `invalid_request` (4xx) or `server_error`.
 */
export const oauthErrorCodes: ReadonlyMap<string, string> = new Map(
  (
    [
      [e.OAUTH_REQUEST_INVALID, 'invalid_request'],
      [e.OAUTH_CLIENT_UNKNOWN, 'invalid_client'],
      [e.OAUTH_GRANT_TYPE_UNSUPPORTED, 'unsupported_grant_type'],
      [e.DEVICE_CODE_INVALID, 'invalid_grant'],
      [e.AUTHORIZATION_PENDING, 'authorization_pending'],
      [e.POLLING_TOO_FAST, 'slow_down'],
      [e.SIGN_IN_DENIED, 'access_denied'],
      [e.DEVICE_CODE_EXPIRED, 'expired_token'],
      [e.PENDING_SIGN_INS_LIMITED, 'temporarily_unavailable'],
      [e.SIGN_INS_BUSY, 'temporarily_unavailable'],
    ] as Array<[ErrorSpec, string]>
  ).map(([spec, code]) => [spec.type, code]),
);

/** The OAuth error code of a family error type at status `status`. */
export function oauthErrorCode(type: string, status: number): string {
  return oauthErrorCodes.get(type) ?? (status >= 500 ? 'server_error' : 'invalid_request');
}
