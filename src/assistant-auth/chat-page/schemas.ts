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
