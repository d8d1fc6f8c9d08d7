import type {} from '@fastify/websocket';
import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ConversationService } from './conversation-service.ts';
import type { ChannelCredentials } from './credentials.ts';
import {
  activityInput,
  activitySetSchema,
  conversationAnswerSchema,
  conversationParams,
  resourceResponseSchema,
  startBody,
  streamQuery,
  tokenAnswerSchema,
  watermarkQuery,
} from './schemas.ts';
import type { StreamHub } from './stream-hub.ts';

interface Parts {
  credentials: ChannelCredentials;
  conversations: ConversationService;
  hub: StreamHub;
}

const tags = ['conversation channel'];
const bearer =
  'Authorization: `Bearer <token>` (or the channel secret, `sintonia directline-secret`); missing 401, invalid, expired or another conversation’s token 403.';

/** The Direct Line 3.0 routes of the embedded channel, top to bottom, and its WebSocket stream. */
export async function registerDirectLineRoutes(app: App, parts: Parts): Promise<void> {
  const { credentials, conversations, hub } = parts;
  const who = (authorization: string | undefined) => credentials.authenticate(authorization);

  app.post(
    '/v3/directline/tokens/generate',
    {
      schema: {
        summary: 'Direct Line: a token for a new conversation.',
        description: `Bearer: the channel secret only. The token is bound to a new conversation id and to \`user.id\` (or a generated \`dl_…\` id). ${bearer}`,
        tags,
        body: startBody,
        response: { 200: tokenAnswerSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => conversations.generate(await who(request.headers.authorization), request.body),
  );
  app.post(
    '/v3/directline/tokens/refresh',
    {
      schema: {
        summary: 'Direct Line: a new token for the same conversation and user.',
        description: `Bearer: a valid, unexpired token. ${bearer}`,
        tags,
        response: { 200: tokenAnswerSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => conversations.refresh(await who(request.headers.authorization)),
  );
  app.post(
    '/v3/directline/conversations',
    {
      schema: {
        summary: 'Direct Line: start a conversation (201), or the token’s conversation again (200).',
        description: `With a token: its conversation. With the secret: a new one. The streamUrl replays the conversation from its start. ${bearer}`,
        tags,
        body: startBody,
        response: {
          200: conversationAnswerSchema,
          201: conversationAnswerSchema,
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const { created, answer } = await conversations.start(
        await who(request.headers.authorization),
        request.body,
      );
      return reply.code(created ? 201 : 200).send(answer);
    },
  );
  app.get(
    '/v3/directline/conversations/:conversationId',
    {
      schema: {
        summary: 'Direct Line: reconnect — a fresh token and streamUrl.',
        description: `The streamUrl replays from \`watermark\`; without it, only what comes after this call. ${bearer}`,
        tags,
        params: conversationParams,
        querystring: watermarkQuery,
        response: { 200: conversationAnswerSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      conversations.reconnect(
        await who(request.headers.authorization),
        request.params.conversationId,
        request.query.watermark,
      ),
  );
  app.post(
    '/v3/directline/conversations/:conversationId/activities',
    {
      schema: {
        summary: 'Direct Line: send an activity; a message is answered by the assistant agent.',
        description: `\`from.id\` is always the token’s user. The answer (or the agent’s error, with the family error body in \`value\`) arrives as a bot activity. ${bearer}`,
        tags,
        params: conversationParams,
        body: activityInput,
        response: { 200: resourceResponseSchema, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) =>
      conversations.post(
        await who(request.headers.authorization),
        request.params.conversationId,
        request.body,
      ),
  );
  app.get(
    '/v3/directline/conversations/:conversationId/activities',
    {
      schema: {
        summary: 'Direct Line: activities after a watermark (polling clients).',
        description: `At most 100 per call; \`typing\` is only sent over the stream. ${bearer}`,
        tags,
        params: conversationParams,
        querystring: watermarkQuery,
        response: { 200: activitySetSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      conversations.list(
        await who(request.headers.authorization),
        request.params.conversationId,
        request.query.watermark,
      ),
  );

  // The stream: pre-authorised by the ticket `t` of the streamUrl, checked before the upgrade (403 over HTTP).
  app.get(
    '/v3/directline/conversations/:conversationId/stream',
    {
      websocket: true,
      schema: { params: conversationParams, querystring: streamQuery },
      preHandler: async (request) => {
        await credentials.verifyStreamTicket(request.query.t, request.params.conversationId);
        await conversations.ensureExists(request.params.conversationId);
      },
    },
    (socket, request) => {
      hub.attach(socket, request.params.conversationId, Number(request.query.watermark || 0));
    },
  );
}
