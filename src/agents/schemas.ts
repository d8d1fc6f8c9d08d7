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

export const invokeRequestSchema = Type.Object(
  {
    input: Type.String({ minLength: 1, maxLength: 8000, description: 'What the user said.' }),
    conversationId: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._:|-]{1,128}$',
        description: 'The caller’s conversation, echoed back (agents keep no state between turns).',
      }),
    ),
  },
  { $id: 'InvokeRequest', description: 'Unknown fields are ignored.' },
);

export const invokeResponseSchema = Type.Object(
  {
    agent: Type.String({ minLength: 1 }),
    output: Type.String({ description: 'The agent’s answer.' }),
    conversationId: Type.Optional(Type.String()),
    model: Type.Optional(Type.String({ description: 'The model that answered, for model-backed agents.' })),
  },
  { $id: 'InvokeResponse' },
);

export type AgentView = Static<typeof agentSchema>;
export type InvokeRequest = Static<typeof invokeRequestSchema>;
export type InvokeResponse = Static<typeof invokeResponseSchema>;

/** The `data` of the stream's events. */
export const streamEventsDescription = [
  'Server-Sent Events: `event: chunk` with `{ "text": string }` as the answer comes,',
  'then `event: done` with the InvokeResponse body. A failure after the stream has begun is',
  '`event: error` with the family error body `{ code, message, errors }`, and ends the stream.',
  'Failures before the first chunk (auth, validation, unknown agent, configuration, upstream)',
  'are ordinary HTTP error responses.',
].join(' ');
