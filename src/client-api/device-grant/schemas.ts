import Type, { type Static } from 'typebox';
import { errorItemSchema } from '../../core/errors.ts';
import { DeviceId } from '../auth/schemas.ts';
import { boundedString, pathBoolean } from '../common-schemas.ts';
import { AccountNumber, DEVICE_NAME_MAX_LENGTH } from '../devices/schemas.ts';

/** The grant type of RFC 8628 at the token endpoint. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * The OAuth endpoints' bodies are form-encoded (`application/x-www-form-urlencoded`), and unknown
 * parameters are ignored as OAuth asks; values are strings.
 */
export const DeviceAuthorizationRequest = Type.Object(
  {
    client_id: boundedString(24, { description: 'Public client id: the device class the TV signs in as.' }),
    device_id: DeviceId,
    device_name: Type.Optional(
      boundedString(DEVICE_NAME_MAX_LENGTH, { description: 'Name the TV gives itself on first sign-in.' }),
    ),
    scope: Type.Optional(Type.String({ maxLength: 256, description: 'Accepted and ignored.' })),
  },
  { description: 'A TV asks for a sign-in code (RFC 8628 section 3.1).' },
);
export type DeviceAuthorizationRequestValue = Static<typeof DeviceAuthorizationRequest>;

export const DeviceAuthorizationResponse = Type.Object(
  {
    device_code: Type.String({ description: "The TV's secret for the token endpoint; single use." }),
    user_code: Type.String({ description: 'What the TV shows: 8 letters as XXXX-XXXX.' }),
    verification_uri: Type.String({ description: 'The page where a person approves the code.' }),
    verification_uri_complete: Type.String({ description: 'The same page with the code filled in.' }),
    expires_in: Type.Integer({ description: 'Seconds both codes are valid (DEVICE_GRANT_TTL).' }),
    interval: Type.Integer({ description: 'Seconds to wait between polls (DEVICE_GRANT_INTERVAL).' }),
  },
  { description: 'The codes of a TV sign-in (RFC 8628 section 3.2).' },
);

export const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ maxLength: 256, description: `Must be ${DEVICE_CODE_GRANT_TYPE}.` }),
    device_code: Type.Optional(Type.String({ maxLength: 256 })),
    client_id: boundedString(24, { description: 'The client id the codes were asked with.' }),
  },
  { description: 'A TV polls for its tokens (RFC 8628 section 3.4).' },
);
export type TokenRequestValue = Static<typeof TokenRequest>;

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'The device access token (JWT), as a password sign-in gives.' }),
    token_type: Type.Unsafe<'Bearer'>({ type: 'string', enum: ['Bearer'] }),
    expires_in: Type.Integer(),
    refresh_token: Type.String({ description: 'For GET …/auth/devices/{deviceClass}/{deviceId}/tokens.' }),
    session_id: Type.String({ description: 'The new session (sign-out closes it).' }),
    device_class: Type.String({ description: 'The device class the TV is signed in as (its client_id).' }),
    device_id: Type.String({
      description:
        'The device the TV became: the device_id it asked for, or that id with a suffix when the account already held a device with it (a TV never takes over an existing device). Its refreshes name this one.',
    }),
  },
  { description: 'The TV is signed in (RFC 6749 section 5.1).' },
);

/** The OAuth error body with the family's fields beside it (docs/decisions.md). */
export const OAuthError = Type.Object(
  {
    error: Type.String({
      description:
        'RFC 6749/8628 code: invalid_request, invalid_client, invalid_grant, unsupported_grant_type, authorization_pending, slow_down, access_denied, expired_token, temporarily_unavailable.',
    }),
    error_description: Type.String(),
    code: Type.String({ description: 'Category of the HTTP status, as in the family error body.' }),
    message: Type.String(),
    errors: Type.Array(errorItemSchema),
  },
  { description: 'An OAuth error (RFC 6749 section 5.2) that also carries the family error body.' },
);

export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    device_authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  },
  { description: 'RFC 8414 authorization server metadata.' },
);

/** A code as a person typed it: the operations normalise it (case, dash, spaces). */
export const UserCode = Type.String({
  minLength: 1,
  maxLength: 16,
  description: 'The code the TV shows (XXXX-XXXX; case, dash and spaces do not matter).',
});

export const SignInParams = Type.Object({ accountNumber: AccountNumber, userCode: UserCode });
export const DecisionParams = Type.Object({
  accountNumber: AccountNumber,
  userCode: UserCode,
  approved: pathBoolean('true approves, false denies.'),
});

export const DeviceSignIn = Type.Object(
  {
    userCode: Type.String({ description: 'XXXX-XXXX.' }),
    deviceClass: Type.String({ description: 'The class the TV signs in as (its client id).' }),
    deviceId: Type.String({
      description:
        'The id the TV asked for (its own word). If the account holds a device with it already, the TV gets a new device of its own on approval.',
    }),
    deviceName: Type.String({
      description:
        'The name the TV gave itself, untrusted: control and quoting characters removed, at most 32 characters; else "<class> <id>". Show it as quoted data on a line of its own, never inside a sentence.',
    }),
    status: Type.Unsafe<'pending' | 'approved' | 'denied'>({
      type: 'string',
      enum: ['pending', 'approved', 'denied'],
    }),
    requestedAt: Type.String({ format: 'date-time', description: 'When the TV asked for its code.' }),
    requestedFrom: Type.String({
      description: 'The address it asked from, coarsely: an IPv4 /24 or an IPv6 /48 ("unknown" if not kept).',
    }),
    warning: Type.String({
      description: 'What to show before the choice: approve only a code on a screen in front of you.',
    }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  {
    xml: { name: 'DeviceSignIn' },
    description: 'A TV waiting to be signed in with a code, or just decided.',
  },
);
export type DeviceSignInValue = Static<typeof DeviceSignIn>;
