import Type, { type Static } from 'typebox';

export const agentNameParams = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'The agent’s registered name.' }),
});

export const agentSchema = Type.Object(
  {
    name: Type.String({ description: 'Registered name, used in the paths.' }),
    description: Type.String(),
    configured: Type.Boolean({
      description: 'False when the agent lacks configuration: calls then answer 400 AGENT_CONFIG_ERROR.',
    }),
    streaming: Type.Boolean({ description: 'Whether the agent streams its answer in several chunks.' }),
  },
  { $id: 'Agent' },
);

export const agentListSchema = Type.Object({ agents: Type.Array(agentSchema) }, { $id: 'AgentList' });

/** A file the user sent with the turn; the channel serves it at `contentUrl` without other credentials. */
const turnAttachmentSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    contentType: Type.String({ minLength: 1, maxLength: 256 }),
    size: Type.Integer({ minimum: 0, description: 'Bytes.' }),
    contentUrl: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { $id: 'TurnAttachment' },
);

export const invokeRequestSchema = Type.Object(
  {
    input: Type.String({
      minLength: 1,
      maxLength: 8000,
      description: 'What the user said; for a message of files alone, their names.',
    }),
    conversationId: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._:|-]{1,128}$',
        description: 'The caller’s conversation, echoed back (agents keep no state between turns).',
      }),
    ),
    locale: Type.Optional(
      Type.String({ maxLength: 64, description: 'The user’s locale (`es-ES`), when the channel knows it.' }),
    ),
    attachments: Type.Optional(Type.Array(turnAttachmentSchema, { maxItems: 32 })),
  },
  { $id: 'InvokeRequest', description: 'Unknown fields are ignored.' },
);

/** A button offered with the answer (Bot Framework's CardAction); Direct Line clients show it. */
const cardActionSchema = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64, description: '`imBack`, `postBack`, `messageBack`, …' }),
    title: Type.Optional(Type.String({ maxLength: 256 })),
    value: Type.Optional(Type.Unknown()),
    text: Type.Optional(Type.String({ maxLength: 1024 })),
    displayText: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { $id: 'CardAction' },
);

export const suggestedActionsSchema = Type.Object(
  { actions: Type.Array(cardActionSchema, { minItems: 1, maxItems: 16 }) },
  { $id: 'SuggestedActions', description: 'Quick replies offered with the answer (e.g. yes / no).' },
);

const answerAttachmentSchema = Type.Object(
  {
    contentType: Type.String({ minLength: 1, maxLength: 256 }),
    contentUrl: Type.Optional(Type.String({ maxLength: 4096 })),
    content: Type.Optional(Type.Unknown({ description: 'A card, for card content types.' })),
    name: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { $id: 'AnswerAttachment' },
);

export const textFormats = ['plain', 'markdown'] as const;

/** The Bot Framework's `textFormat` of an answer; Direct Line puts it on the bot's activity. */
export const textFormatSchema = Type.Enum(textFormats, {
  description:
    'How to show `output`: `plain` as written, every character literally (the answer quotes what a person or a device controls, such as device names, so none of it may become a link or an element); `markdown` rendered.',
});

export const invokeResponseSchema = Type.Object(
  {
    agent: Type.String({ minLength: 1 }),
    output: Type.String({ description: 'The agent’s answer.' }),
    textFormat: textFormatSchema,
    conversationId: Type.Optional(Type.String()),
    model: Type.Optional(Type.String({ description: 'The model that answered, for model-backed agents.' })),
    suggestedActions: Type.Optional(suggestedActionsSchema),
    attachments: Type.Optional(Type.Array(answerAttachmentSchema, { maxItems: 32 })),
  },
  { $id: 'InvokeResponse' },
);

export type AgentView = Static<typeof agentSchema>;
export type InvokeRequest = Static<typeof invokeRequestSchema>;
export type InvokeResponse = Static<typeof invokeResponseSchema>;
export type TurnAttachment = Static<typeof turnAttachmentSchema>;
export type SuggestedActions = Static<typeof suggestedActionsSchema>;
export type AnswerAttachment = Static<typeof answerAttachmentSchema>;
export type TextFormat = Static<typeof textFormatSchema>;

/** The `data` of the stream's events. */
export const streamEventsDescription = [
  'Server-Sent Events: `event: chunk` with `{ "text": string, "textFormat": "plain" | "markdown" }` as the',
  'answer comes (every chunk of a turn has the same textFormat: show `plain` text as written, never as',
  'markdown or HTML), then `event: done` with the InvokeResponse body.',
  'A failure after the stream has begun is `event: error` with the family error body',
  '`{ code, message, errors }`, and ends the stream.',
  'Failures before the first chunk (auth, validation, unknown agent, configuration, upstream)',
  'are ordinary HTTP error responses.',
].join(' ');
