import Type, { type Static } from 'typebox';

/** Conversation ids we mint: 22 base64url characters. */
const conversationIdPattern = '^[A-Za-z0-9_-]{8,64}$';
/** Direct Line user ids bound into tokens carry the `dl_` prefix. */
const userIdPattern = '^dl_[A-Za-z0-9._:@-]{1,125}$';
/** User ids a client may name when it starts a conversation (Web Chat makes up `r_…` ones). */
const clientUserIdPattern = '^[A-Za-z0-9._:@-]{1,128}$';

const channelAccount = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 256 })),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    role: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: true },
);

/** A button of a card or of suggestedActions (Bot Framework's CardAction). */
const cardAction = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 64,
      description: '`imBack`, `postBack`, `messageBack`, `openUrl`, …',
    }),
    title: Type.Optional(Type.String({ maxLength: 256 })),
    value: Type.Optional(Type.Unknown()),
    text: Type.Optional(Type.String({ maxLength: 1024 })),
    displayText: Type.Optional(Type.String({ maxLength: 1024 })),
    image: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);

/** Buttons offered with a message; Web Chat shows them under it until the user answers. */
export const suggestedActionsSchema = Type.Object(
  {
    actions: Type.Array(cardAction, { maxItems: 16 }),
    to: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 16 })),
  },
  { additionalProperties: true },
);
export type SuggestedActions = Static<typeof suggestedActionsSchema>;

/** An attachment of a bot message: a file by URL or a card by content. */
export const replyAttachmentsSchema = Type.Array(
  Type.Object(
    {
      contentType: Type.String({ minLength: 1, maxLength: 256 }),
      contentUrl: Type.Optional(Type.String({ maxLength: 4096 })),
      content: Type.Optional(Type.Unknown()),
      name: Type.Optional(Type.String({ maxLength: 256 })),
      thumbnailUrl: Type.Optional(Type.String({ maxLength: 4096 })),
    },
    { additionalProperties: true },
  ),
  { maxItems: 32 },
);
export type ReplyAttachment = Static<typeof replyAttachmentsSchema>[number];

const activityFields = {
  type: Type.String({ minLength: 1, maxLength: 64, description: '`message`, `typing`, `event`, …' }),
  id: Type.Optional(Type.String()),
  timestamp: Type.Optional(Type.String()),
  channelId: Type.Optional(Type.String()),
  conversation: Type.Optional(Type.Object({ id: Type.String() }, { additionalProperties: true })),
  from: Type.Optional(channelAccount),
  text: Type.Optional(Type.String({ maxLength: 16000 })),
  textFormat: Type.Optional(Type.String({ maxLength: 32 })),
  locale: Type.Optional(Type.String({ maxLength: 64 })),
  name: Type.Optional(Type.String({ maxLength: 256 })),
  replyToId: Type.Optional(Type.String({ maxLength: 256 })),
  value: Type.Optional(Type.Unknown()),
  channelData: Type.Optional(Type.Unknown()),
  attachments: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 32 })),
  suggestedActions: Type.Optional(suggestedActionsSchema),
};

/** What a client posts; the server sets id, timestamp, channelId, conversation and `from.id`. */
export const activityInput = Type.Object(activityFields, {
  additionalProperties: true,
  description: 'A Bot Framework activity.',
});
export type ActivityInput = Static<typeof activityInput>;

const activitySchema = Type.Object(activityFields, {
  $id: 'DirectLineActivity',
  additionalProperties: true,
  description: 'A Bot Framework activity as the channel stored it.',
});
/** An activity as stored and served: the server-set fields are always there. */
export type Activity = ActivityInput & {
  id: string;
  timestamp: string;
  channelId: string;
  conversation: { id: string };
  from: { id: string; name?: string; role?: string };
};

export const activitySetSchema = Type.Object(
  {
    activities: Type.Array(activitySchema),
    watermark: Type.String({ description: 'Pass it back to get only what came after.' }),
  },
  { $id: 'DirectLineActivitySet' },
);

export const resourceResponseSchema = Type.Object(
  { id: Type.String({ description: 'Id of the stored activity.' }) },
  { $id: 'DirectLineResourceResponse' },
);

export const tokenAnswerSchema = Type.Object(
  {
    conversationId: Type.String(),
    token: Type.String({ description: 'Bound to this conversation and user; send as `Bearer`.' }),
    expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
  },
  { $id: 'DirectLineToken' },
);

export const conversationAnswerSchema = Type.Object(
  {
    conversationId: Type.String(),
    token: Type.String(),
    expires_in: Type.Integer(),
    streamUrl: Type.String({
      description:
        'Pre-authorised WebSocket address (usable for 60 s) that pushes `{ activities, watermark }` sets and empty keep-alives.',
    }),
  },
  { $id: 'DirectLineConversation' },
);

const startBodyOf = (userId: ReturnType<typeof Type.String>) =>
  Type.Optional(
    Type.Object(
      {
        user: Type.Optional(
          Type.Object(
            { id: Type.Optional(userId), name: Type.Optional(Type.String({ maxLength: 256 })) },
            { additionalProperties: true },
          ),
        ),
        locale: Type.Optional(Type.String({ maxLength: 64 })),
      },
      { additionalProperties: true },
    ),
  );

/** Body of tokens/generate (optional in Direct Line): the user bound into the token carries `dl_`. */
export const startBody = startBodyOf(Type.String({ pattern: userIdPattern }));
export type StartBody = Static<typeof startBody>;

/**
 * Body of POST /conversations. Web Chat sends the user id it made up (`r_…`) when the token carries
 * none, or `{ user: {} }`: with a token the token's user stands and this id is ignored; with the
 * secret (a trusted server) it names the conversation's user.
 */
export const conversationStartBody = startBodyOf(
  Type.String({
    pattern: clientUserIdPattern,
    description: 'Ignored with a token (the token’s user stands); the conversation’s user with the secret.',
  }),
);
export type ConversationStartBody = Static<typeof conversationStartBody>;

export const conversationParams = Type.Object({
  conversationId: Type.String({ pattern: conversationIdPattern }),
});

export const watermarkQuery = Type.Object({
  watermark: Type.Optional(
    Type.String({ pattern: '^[0-9]{0,15}$', description: 'Watermark of the last activity already seen.' }),
  ),
});

export const streamQuery = Type.Object({
  t: Type.String({ minLength: 1, maxLength: 4096, description: 'The stream ticket of the streamUrl.' }),
  watermark: Type.Optional(Type.String({ pattern: '^[0-9]{0,15}$' })),
});

export const uploadQuery = Type.Object({
  userId: Type.Optional(
    Type.String({ maxLength: 256, description: 'Sent by DirectLineJS; ignored, the token’s user stands.' }),
  ),
});

/** An upload's parts as the document shows them (DirectLineJS's FormData); upload.ts reads them. */
export const uploadForm = Type.Object({
  activity: Type.Optional(
    Type.String({
      description:
        'One activity as JSON (DirectLineJS sends it as a part of type `application/vnd.microsoft.activity`): the message the files belong to; its own attachments are replaced by the files.',
    }),
  ),
  file: Type.Array(Type.String({ format: 'binary' }), {
    minItems: 1,
    description:
      'The files, one part each with its file name and media type; any part not named `activity` is taken as a file.',
  }),
});

export const fileParams = Type.Object({
  conversationId: Type.String({ pattern: conversationIdPattern }),
  fileId: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}$' }),
});

export const fileQuery = Type.Object({
  t: Type.Optional(
    Type.String({
      maxLength: 128,
      description:
        'The signature of the contentUrl: lets a browser’s <img> or link fetch the file without a token.',
    }),
  ),
});
