import Type, { type Static } from 'typebox';
import { ACCOUNT_NUMBER_PATTERN, CLIENT_API_AUDIENCE, delegationScopes } from '../../core/delegation.ts';

/** E.164: a plus, a country code that does not start with 0, at most 15 digits in all. */
export const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';
/** Channel names are the keys of ASSISTANT_ID_TTL_BY_CHANNEL. */
const CHANNEL_PATTERN = '^[a-z0-9_-]{1,32}$';
const ID_PATTERN = '^[A-Za-z0-9._:@+-]{1,128}$';

const userSources = ['channel', 'external', 'integrated'] as const;
export type UserSource = (typeof userSources)[number];

/** A string checked against a pattern, described for the API document. */
const patterned = (pattern: string, description: string) => Type.String({ pattern, description });

export const accountNumberField = patterned(
  ACCOUNT_NUMBER_PATTERN,
  'The pay-TV account number the gateway authenticated.',
);
export const platformUserIdField = patterned(
  ID_PATTERN,
  'The pay-TV platform user id, when the gateway knows it.',
);

export const assistantUserSchema = Type.Object(
  {
    assistantId: Type.String({ description: 'The user’s id in one channel; expires (per channel).' }),
    assistantIdGlobal: Type.String({ description: 'Ties one person’s assistantIds across channels.' }),
    channel: Type.String({ description: 'The channel the assistantId belongs to (whatsapp, web, …).' }),
    source: Type.Union([Type.Literal('channel'), Type.Literal('external'), Type.Literal('integrated')], {
      description:
        'channel: GET /users/assistant-id; external: GET /users/assistant-id/{assistantId}; integrated: the gateway’s account-linking callback.',
    }),
    hasPhoneNumber: Type.Boolean({ description: 'A phone number is on file (never returned).' }),
    linkedAccount: Type.Optional(
      Type.Object(
        {
          accountNumber: accountNumberField,
          platformUserId: Type.Optional(platformUserIdField),
          linkedAt: Type.String({ format: 'date-time' }),
        },
        {
          description:
            'The pay-TV account the gateway linked this user to (account-linking callback); absent while unlinked.',
        },
      ),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AssistantUser' },
);
export type AssistantUser = Static<typeof assistantUserSchema>;

const channelHeader = patterned(
  CHANNEL_PATTERN,
  'The caller’s channel (lower-case name, e.g. `whatsapp`, `web`).',
);
const phoneNumberHeader = patterned(
  E164_PATTERN,
  'The person’s phone number in E.164 (`+34600111222`); stored only hashed and encrypted.',
);

/** GET /users/assistant-id: the channel's own authentication data, in headers (kept out of URLs). */
export const channelIdentityHeaders = Type.Object({
  'x-channel': channelHeader,
  'x-channel-user-id': Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'The user’s id as the channel authenticated it; stored only as a keyed hash.',
  }),
  'x-phone-number': Type.Optional(phoneNumberHeader),
});

export const externalUserHeaders = Type.Object({
  'x-channel': channelHeader,
  'x-phone-number': Type.Optional(phoneNumberHeader),
});

export const channelOnlyHeaders = Type.Object({ 'x-channel': channelHeader });

export const assistantIdParams = Type.Object({
  assistantId: patterned(ID_PATTERN, 'The assistantId.'),
});

export const assistantIdGlobalParams = Type.Object({
  assistant_id_global: patterned(ID_PATTERN, 'The assistantIdGlobal.'),
});

export const phoneNumberParams = Type.Object({
  phone_number: patterned(E164_PATTERN, 'E.164 phone number, `+` included.'),
});

const scopeList = Type.Array(Type.Enum(delegationScopes), {
  minItems: 1,
  uniqueItems: true,
  description: `What the token may do on the linked account: ${delegationScopes.join(', ')}.`,
});

/** POST /users/{assistantId}/delegations */
export const delegationRequestSchema = Type.Object(
  {
    audience: Type.Literal('client-api', { description: 'The service the token is for.' }),
    scope: Type.Optional(scopeList),
  },
  { additionalProperties: false },
);

export const delegationSchema = Type.Object(
  {
    token: Type.String({ description: 'A JWT the assistant signed; send it as `Authorization: Bearer`.' }),
    tokenType: Type.Literal('Bearer'),
    expiresIn: Type.Integer({ description: 'Seconds until it expires (at most 300).' }),
    audience: Type.Literal(CLIENT_API_AUDIENCE),
    accountNumber: Type.String({ description: 'The linked account the token acts on.' }),
    scope: scopeList,
  },
  { $id: 'Delegation' },
);
export type Delegation = Static<typeof delegationSchema>;

/** POST /delegations/status: a delegated token whose standing client-api asks about. */
export const delegationStatusRequestSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 8192, description: 'The delegated token (a JWT).' }) },
  { additionalProperties: false },
);

export const delegationStatusSchema = Type.Object(
  {
    active: Type.Boolean({
      description:
        'True while the token is this service’s, unexpired, and its user is still linked to its account.',
    }),
  },
  { $id: 'DelegationStatus' },
);
