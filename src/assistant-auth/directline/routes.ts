import type {} from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ConversationService } from './conversation-service.ts';
import { allowAnyOrigin, registerPreflight } from './cors.ts';
import type { ChannelCredentials, Credential } from './credentials.ts';
import { directLineErrors } from './errors.ts';
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

declare module 'fastify' {
  interface FastifyRequest {
    /** Who calls a Direct Line route; set by its onRequest hook, before the body is even read. */
    directLineCredential?: Credential;
  }
}

interface Parts {
  credentials: ChannelCredentials;
  conversations: ConversationService;
  hub: StreamHub;
}

const tags = ['conversation channel'];
/** The document's bearer scheme of the Direct Line routes (assistant-auth/openapi.ts). */
const security = [{ directLineBearer: [] }];
const bearer =
  'Authorization: `Bearer <token>` (or the channel secret, `sintonia directline-secret`); missing 401, invalid, expired or another conversation’s token 403.';

/** The Direct Line 3.0 routes of the embedded channel, top to bottom, and its WebSocket stream. */
export async function registerDirectLineRoutes(app: App, parts: Parts): Promise<void> {
  const { credentials, conversations, hub } = parts;
  app.decorateRequest('directLineCredential', undefined);
  registerPreflight(app);
  // Credentials first: an expired or forged token is 403 whatever the body says.
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    allowAnyOrigin(reply);
    request.directLineCredential = await credentials.authenticate(request.headers.authorization);
  };
  const who = (request: FastifyRequest): Credential => {
    if (!request.directLineCredential) throw directLineErrors.DIRECTLINE_CREDENTIALS_MISSING();
    return request.directLineCredential;
  };

  app.post(
    '/v3/directline/tokens/generate',
    {
      onRequest,
      schema: {
        operationId: 'generateDirectLineToken',
        summary: 'Direct Line: a token for a new conversation.',
        description: `Bearer: the channel secret only. The token is bound to a new conversation id and to \`user.id\` (or a generated \`dl_…\` id). ${bearer}`,
        tags,
        security,
        body: startBody,
        response: { 200: tokenAnswerSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => conversations.generate(who(request), request.body),
  );
  app.post(
    '/v3/directline/tokens/refresh',
    {
      onRequest,
      schema: {
        operationId: 'refreshDirectLineToken',
        summary: 'Direct Line: a new token for the same conversation and user.',
        description: `Bearer: a valid, unexpired token. ${bearer}`,
        tags,
        security,
        response: { 200: tokenAnswerSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => conversations.refresh(who(request)),
  );
  app.post(
    '/v3/directline/conversations',
    {
      onRequest,
      schema: {
        operationId: 'startConversation',
        summary: 'Direct Line: start a conversation (201), or the token’s conversation again (200).',
        description: `With a token: its conversation. With the secret: a new one. The streamUrl replays the conversation from its start. ${bearer}`,
        tags,
        security,
        body: startBody,
        response: {
          200: conversationAnswerSchema,
          201: conversationAnswerSchema,
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const { created, answer } = await conversations.start(who(request), request.body);
      return reply.code(created ? 201 : 200).send(answer);
    },
  );
  app.get(
    '/v3/directline/conversations/:conversationId',
    {
      onRequest,
      schema: {
        operationId: 'reconnectToConversation',
        summary: 'Direct Line: reconnect — a fresh token and streamUrl.',
        description: `The streamUrl replays from \`watermark\`; without it, only what comes after this call. ${bearer}`,
        tags,
        security,
        params: conversationParams,
        querystring: watermarkQuery,
        response: { 200: conversationAnswerSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      conversations.reconnect(who(request), request.params.conversationId, request.query.watermark),
  );
  app.post(
    '/v3/directline/conversations/:conversationId/activities',
    {
      onRequest,
      schema: {
        operationId: 'postActivity',
        summary: 'Direct Line: send an activity; a message is answered by the assistant agent.',
        description: `\`from.id\` is always the token’s user. The answer (or the agent’s error, with the family error body in \`value\`) arrives as a bot activity. ${bearer}`,
        tags,
        security,
        params: conversationParams,
        body: activityInput,
        response: { 200: resourceResponseSchema, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) => conversations.post(who(request), request.params.conversationId, request.body),
  );
  app.get(
    '/v3/directline/conversations/:conversationId/activities',
    {
      onRequest,
      schema: {
        operationId: 'getActivities',
        summary: 'Direct Line: activities after a watermark (polling clients).',
        description: `At most 100 per call; \`typing\` is only sent over the stream. ${bearer}`,
        tags,
        security,
        params: conversationParams,
        querystring: watermarkQuery,
        response: { 200: activitySetSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      conversations.list(who(request), request.params.conversationId, request.query.watermark),
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
