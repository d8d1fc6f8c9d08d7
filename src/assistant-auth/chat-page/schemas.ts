import Type from 'typebox';

export const chatTokenSchema = Type.Object(
  {
    token: Type.String({
      description: 'Conversation-channel token (Direct Line 3.0) for one new conversation.',
    }),
    expires_in: Type.Integer({
      description: 'Seconds until the token expires; Web Chat refreshes it before.',
    }),
    conversationId: Type.String(),
    domain: Type.String({ description: 'Web Chat’s `domain`: the Direct Line 3.0 base URL to talk to.' }),
  },
  { $id: 'ChatPageToken' },
);

/** The chat page's sign-in: the person's pay-TV credentials, checked by client-api (never stored here). */
export const chatSignInSchema = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 320, description: 'The pay-TV user name (e-mail).' }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
