import Type from 'typebox';
import { channelIdentityHeaders } from '../users/schemas.ts';

const { 'x-channel': channel, 'x-channel-user-id': channelUserId } = channelIdentityHeaders.properties;

/**
 * The person a conversation speaks for: a channel identity, as `GET /users/assistant-id` takes it. Both
 * headers or neither (anonymous); the access check of the key class comes first.
 */
export const channelSpeakerHeaders = Type.Object(
  {
    'x-channel': Type.Optional({
      ...channel,
      description:
        'With X-Channel-User-Id (gateway or runtime keys): the channel of the person the conversation speaks for (`whatsapp`, `web`, …).',
    }),
    'x-channel-user-id': Type.Optional({
      ...channelUserId,
      description:
        'With X-Channel (gateway or runtime keys): the person’s id as that channel authenticated it; the conversation is bound to its assistant user.',
    }),
  },
  {
    dependencies: { 'x-channel': ['x-channel-user-id'], 'x-channel-user-id': ['x-channel'] },
  },
);

export const channelTokenQuery = Type.Object({
  userId: Type.Optional(
    Type.String({
      pattern: '^dl_[A-Za-z0-9._:@-]{1,125}$',
      description: 'Direct Line user id to bind the token to (`dl_…`); default: the channel picks one.',
    }),
  ),
});

export const channelTokenSchema = Type.Object(
  {
    token: Type.String({ description: 'Conversation-channel token (Direct Line 3.0).' }),
    expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
    conversationId: Type.String(),
  },
  { $id: 'ChannelToken' },
);

export const channelStreamTokenSchema = Type.Object(
  {
    token: Type.String({ description: 'Token bound to a new conversation.' }),
    expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
    conversationId: Type.String(),
    streamUrl: Type.String({ description: 'Websocket URL of the conversation’s activity stream.' }),
    referenceGrammarId: Type.Optional(Type.String()),
    eTag: Type.Optional(Type.String()),
  },
  {
    $id: 'ChannelStreamToken',
    additionalProperties: true,
    description: 'Direct Line 3.0 conversation answer, with any further fields the channel returns.',
  },
);
