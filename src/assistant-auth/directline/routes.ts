import type {} from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import { subsystemErrors } from '../../core/errors.ts';
import type { RouteSchema } from '../../core/http/route-errors.ts';
import { type App, typed } from '../../core/http/service-app.ts';
import type { AssistantAuth } from '../composition.ts';
import { type Operation, operation } from '../operation.ts';
import { allowAnyOrigin, preflightOrNotFound } from './cors.ts';
import type { Credential } from './credentials.ts';
import { activityLimitErrors, directLineErrors } from './errors.ts';
import { fileRoutes } from './file-routes.ts';
import {
  activityInput,
  activitySetSchema,
  conversationAnswerSchema,
  conversationParams,
  conversationStartBody,
  resourceResponseSchema,
  startBody,
  streamQuery,
  tokenAnswerSchema,
  watermarkQuery,
} from './schemas.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who calls a Direct Line route; set by its onRequest hook, before the body is even read. */
    directLineCredential?: Credential;
  }
}

const tag = 'conversation channel';
const { DIRECTLINE_CONVERSATION_MISMATCH, DIRECTLINE_CONVERSATION_NOT_FOUND } = directLineErrors;

/** Who may call the Direct Line routes: a bearer of the channel, refused with Direct Line's own types. */
const bearer: Operation['access'] = {
  security: [{ directLineBearer: [] }],
  errors: [
    directLineErrors.DIRECTLINE_CREDENTIALS_MISSING,
    directLineErrors.DIRECTLINE_CREDENTIALS_INVALID,
    directLineErrors.DIRECTLINE_TOKEN_EXPIRED,
  ],
  description:
    'Authorization: `Bearer <token>` (or the channel secret, `sintonia directline-secret`); missing 401, invalid, expired or another conversation’s token 403.',
};

/**
 * A conversation bound to a person through the chat page is renewed only while their sign-in stands, which
 * client-api is asked: 502 when it cannot answer.
 */
const signInCheck = subsystemErrors.SUBSYSTEM_ERROR;

/** A Direct Line operation: the bearer's refusals, plus the entries its own rules raise. */
const described = <S extends RouteSchema>(options: Omit<Operation, 'tag' | 'access'>, schema: S) =>
  operation({ ...options, tag, access: bearer }, schema);

/**
 * The Direct Line 3.0 routes of the embedded channel and its WebSocket stream, in a scope of their own
 * under `/v3/directline`: every answer of that scope carries the CORS headers browsers need, the
 * answers to unknown paths (404) and wrong methods (405) included.
 */
export function directLineRoutes(app: App, api: AssistantAuth): void {
  if (!api.directLine) return;
  app.register(
    async (instance) => {
      const scope = typed(instance);
      scope.addHook('onRequest', async (_request, reply) => allowAnyOrigin(reply));
      scope.setNotFoundHandler(preflightOrNotFound);
      await conversationRoutes(scope, api);
    },
    { prefix: '/v3/directline' },
  );
}

/** The operations, top to bottom; paths are relative to the scope's `/v3/directline`. */
async function conversationRoutes(app: App, { settings, directLine }: AssistantAuth): Promise<void> {
  if (!directLine) return;
  const { credentials, conversations, hub, uploads, streamOrigins } = directLine;
  app.decorateRequest('directLineCredential', undefined);
  // Credentials first: an expired or forged token is 403 whatever the body says.
  const onRequest = async (request: FastifyRequest) => {
    request.directLineCredential = await credentials.authenticate(request.headers.authorization);
  };
  const who = (request: FastifyRequest): Credential => {
    if (!request.directLineCredential) throw directLineErrors.DIRECTLINE_CREDENTIALS_MISSING();
    return request.directLineCredential;
  };

  app.post(
    '/tokens/generate',
    {
      onRequest,
      schema: described(
        {
          id: 'generateDirectLineToken',
          summary: 'Direct Line: a token for a new conversation.',
          description:
            'Bearer: the channel secret only. The token is bound to a new conversation id and to `user.id` (or a generated `dl_…` id).',
          errors: [directLineErrors.DIRECTLINE_SECRET_REQUIRED],
        },
        { body: startBody, response: { 200: tokenAnswerSchema } },
      ),
    },
    async (request) => conversations.generate(who(request), request.body),
  );
  app.post(
    '/tokens/refresh',
    {
      onRequest,
      schema: described(
        {
          id: 'refreshDirectLineToken',
          summary: 'Direct Line: a new token for the same conversation and user.',
          description: 'Bearer: a valid, unexpired token.',
          errors: [directLineErrors.DIRECTLINE_TOKEN_REQUIRED, signInCheck],
        },
        { response: { 200: tokenAnswerSchema } },
      ),
    },
    async (request) => conversations.refresh(who(request)),
  );
  app.post(
    '/conversations',
    {
      onRequest,
      schema: described(
        {
          id: 'startConversation',
          summary: 'Direct Line: start a conversation (201), or the token’s conversation again (200).',
          description:
            'With a token: its conversation, whatever `user.id` the body names (the token’s user stands); a token from `/token` bound to a person names a conversation that exists already (200). With the secret: a new one for `user.id` (or a generated `dl_…` id). Nothing here binds a conversation to a person or changes its binding. The streamUrl replays the conversation from its start.',
          errors: [signInCheck, directLineErrors.DIRECTLINE_CHANNEL_BUSY],
        },
        {
          body: conversationStartBody,
          response: { 200: conversationAnswerSchema, 201: conversationAnswerSchema },
        },
      ),
    },
    async (request, reply) => {
      const { created, answer } = await conversations.start(who(request), request.body);
      return reply.code(created ? 201 : 200).send(answer);
    },
  );
  // The operations on one conversation: the token's own (403 otherwise), and one that exists (404).
  const ofConversation = [DIRECTLINE_CONVERSATION_MISMATCH, DIRECTLINE_CONVERSATION_NOT_FOUND];
  // What a client reads of one conversation after a watermark: a reconnection, or the activities.
  const reads = [
    {
      path: '/conversations/:conversationId',
      id: 'reconnectToConversation',
      summary: 'Direct Line: reconnect — a fresh token and streamUrl.',
      description: 'The streamUrl replays from `watermark`; without it, only what comes after this call.',
      answer: conversationAnswerSchema,
      read: conversations.reconnect,
      errors: [...ofConversation, signInCheck],
    },
    {
      path: '/conversations/:conversationId/activities',
      id: 'getActivities',
      summary: 'Direct Line: activities after a watermark (polling clients).',
      description: 'At most 100 per call; `typing` is only sent over the stream.',
      answer: activitySetSchema,
      read: conversations.list,
      errors: ofConversation,
    },
  ] as const;
  for (const { path, answer, read, ...options } of reads) {
    app.get(
      path,
      {
        onRequest,
        schema: described(options, {
          params: conversationParams,
          querystring: watermarkQuery,
          response: { 200: answer },
        }),
      },
      async (request) => read(who(request), request.params.conversationId, request.query.watermark),
    );
  }
  app.post(
    '/conversations/:conversationId/activities',
    {
      onRequest,
      schema: described(
        {
          id: 'postActivity',
          summary: 'Direct Line: send an activity; a message is answered by the assistant agent.',
          description:
            '`from.id` is always the token’s user. The answer (or the agent’s error, with the family error body in `value`) arrives as a bot activity. Bounded per conversation and for the channel (docs/limits.md).',
          errors: [...ofConversation, ...activityLimitErrors],
        },
        { params: conversationParams, body: activityInput, response: { 200: resourceResponseSchema } },
      ),
    },
    async (request) =>
      conversations.post(who(request), request.params.conversationId, request.body, request.id),
  );
  await fileRoutes(
    app,
    conversations,
    { onRequest, who, described },
    { uploadBytes: settings.DIRECTLINE_UPLOAD_LIMIT, activityBytes: settings.BODY_LIMIT, quota: uploads },
  );
  // The stream: a page of an allowed origin, pre-authorised by the ticket `t` of the streamUrl, both
  // checked before the upgrade (403 over HTTP).
  app.get(
    '/conversations/:conversationId/stream',
    {
      websocket: true,
      schema: { params: conversationParams, querystring: streamQuery },
      onRequest: async (request) => {
        if (!streamOrigins.allows(request.headers.origin)) {
          throw directLineErrors.DIRECTLINE_ORIGIN_NOT_ALLOWED();
        }
        hub.checkRoom();
      },
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
