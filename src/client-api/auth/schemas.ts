import Type, { type Static } from 'typebox';
import { boundedString, QspVersion } from '../common-schemas.ts';
import { DEVICE_NAME_MAX_LENGTH } from '../devices/schemas.ts';
import { User } from '../users/schemas.ts';

export const tiers = ['Production', 'Staging', 'Testing', 'Development', 'Certification', 'V2'] as const;

/** A device id travels in paths: 1-48 characters, no path or query delimiters. */
export const DeviceId = Type.String({
  minLength: 1,
  maxLength: 48,
  pattern: '^[^/?#\\s]+$',
  description: 'Device (media player) id: 1-48 characters without "/", "?", "#" or spaces.',
});
export const DeviceClass = Type.String({
  minLength: 1,
  maxLength: 24,
  pattern: '^[A-Za-z0-9._-]+$',
  description: 'Class of device: 1-24 letters, digits, ".", "_" or "-".',
});

export const Credential = Type.Object(
  {
    username: Type.String({ minLength: 3, maxLength: 254, description: "The user's e-mail address." }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    deviceId: DeviceId,
    deviceName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: DEVICE_NAME_MAX_LENGTH,
        description: 'Name for a newly registered device.',
      }),
    ),
  },
  { description: 'A user signing in on a device.' },
);
export type CredentialValue = Static<typeof Credential>;

export const TokensResponse = Type.Object(
  {
    accessToken: Type.String({
      description: 'JWT (ES256, with kid) for Authorization: Bearer on the client API.',
    }),
    tokenType: Type.Unsafe<'Bearer'>({ type: 'string', enum: ['Bearer'] }),
    expiresIn: Type.Integer({ description: 'Seconds the access token is valid.' }),
    refreshToken: Type.String({ description: 'Opaque; single use: each refresh returns a new one.' }),
    refreshExpiresIn: Type.Integer({ description: 'Seconds the refresh token is valid.' }),
    sessionId: Type.String(),
    qspVersion: Type.String(),
    tier: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    sessionUserProfile: Type.Optional(Type.Integer()),
  },
  { xml: { name: 'TokensResponse' }, description: 'Tokens of a device session.' },
);
export type TokensValue = Static<typeof TokensResponse>;

export const UserResponse = Type.Object(
  {
    user: User,
    tokens: Type.Optional(TokensResponse),
  },
  {
    xml: { name: 'UserResponse' },
    description: 'A user and, unless only checked, the tokens of its new session.',
  },
);

export const BasicCheck = Type.Object(
  { authenticated: Type.Boolean(), platformUserId: Type.String(), accountNumber: Type.String() },
  { xml: { name: 'AuthenticationResult' }, description: 'The credentials are valid.' },
);

export const DeviceClassParams = Type.Object({ deviceClass: DeviceClass });
export const DeviceTokenParams = Type.Object({ deviceClass: DeviceClass, deviceId: DeviceId });
export const AuthenticateQuery = Type.Object({
  'auth-only': Type.Optional(
    Type.Boolean({ description: 'Only check the credentials: no device, no session.' }),
  ),
  qspVersion: QspVersion,
});
export const TokenQuery = Type.Object({
  scope: Type.Optional(boundedString(24, { description: 'Scope to put in the access token.' })),
  sessionUserProfile: Type.Optional(
    Type.Integer({
      minimum: -2147483648,
      maximum: 2147483647,
      format: 'int32',
      description: 'Profile of the session user.',
    }),
  ),
  tier: Type.Optional(
    Type.Unsafe<(typeof tiers)[number]>({
      type: 'string',
      enum: [...tiers],
      description: 'Environment tier.',
    }),
  ),
});
export type TokenOptions = Static<typeof TokenQuery>;
