import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { httpErrors, subsystemErrors } from '../../core/errors.ts';
import { requestLimiter } from '../../core/http/request-limits.ts';
import { type App, noContent } from '../../core/http/service-app.ts';
import { clientAddressGroup } from '../../core/limits/client-address.ts';
import { channelErrors } from '../channel/errors.ts';
import type { AssistantAuth } from '../composition.ts';
import { directLineErrors } from '../directline/errors.ts';
import { type Asset, type AssetSource, chatPageAssets } from './assets.ts';
import { chatPageErrors } from './errors.ts';
import {
  CHAT_ASSETS_PATH,
  CHAT_PATH,
  CHAT_SIGN_IN_PATH,
  CHAT_SIGN_OUT_PATH,
  CHAT_TOKEN_PATH,
  chatPageCsp,
  chatPageHtml,
  newNonce,
} from './page.ts';
import { chatSignInSchema, chatTokenSchema } from './schemas.ts';

const YEAR = 365 * 86400;

/** Sends an asset: 304 to a cache that holds it, gzip to a client that takes it. */
function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  reply.headers({
    'content-type': asset.type,
    'cache-control': `public, max-age=${YEAR}, immutable`,
    etag: asset.etag,
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  });
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  const takesGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (takesGzip && asset.gzipped) return reply.header('content-encoding', 'gzip').send(asset.gzipped);
  return reply.send(asset.body);
}

/**
 * The chat page (CHAT_PAGE): the stock Web Chat, served from the installed package, talking to the
 * assistant on a conversation token the page gets from this service. The token endpoint needs no key,
 * so it is limited per client address; it is not part of the API document (it serves this page only).
 */
export function chatPageRoutes(
  app: App,
  { settings, logger, access, channel, chatPage }: AssistantAuth,
): void {
  if (!chatPage) return;
  const files = chatPageAssets();
  const byName = new Map<string, AssetSource>(files.all.map((source) => [source.name, source]));
  const limiter = requestLimiter(settings.CHAT_TOKEN_LIMIT, settings.REQUEST_LIMIT_WINDOW);
  /** One more token for this client (IPv6 by its /64), or 429 counted in /metrics. */
  const admit = (request: FastifyRequest) => {
    try {
      limiter?.hit(clientAddressGroup(request.ip));
    } catch (refusal) {
      chatPage.refused();
      throw refusal;
    }
  };

  // `npm start` prints where each service listens; this line tells where a person can talk to the assistant.
  app.addHook('onListen', function (done) {
    const address = this.server.address();
    const host = settings.HOST.includes(':') ? `[${settings.HOST}]` : settings.HOST;
    const port = typeof address === 'object' && address ? address.port : settings.ASSISTANT_AUTH_PORT;
    const base = settings.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `http://${host}:${port}`;
    logger.info({ url: `${base}${CHAT_PATH}` }, 'chat page: talk to the assistant in a browser');
    done();
  });

  app.get(CHAT_PATH, { schema: { hide: true } }, async (_request, reply) => {
    const nonce = newNonce();
    return reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': chatPageCsp(chatPage.settings(), nonce),
        // The nonce is new on every load: a cached copy would carry a stale one.
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      })
      .send(chatPageHtml(files, nonce));
  });

  app.get(
    `${CHAT_ASSETS_PATH}/:file`,
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      const source = byName.get(request.params.file);
      if (!source) throw chatPageErrors.CHAT_ASSET_NOT_FOUND();
      return sendAsset(request, reply, await source.load());
    },
  );

  app.post(
    CHAT_TOKEN_PATH,
    access.route(
      {
        id: 'getChatPageToken',
        summary: 'The chat page’s conversation token.',
        description:
          'A new anonymous conversation of the conversation channel and the Direct Line base to talk to; limited per client address (CHAT_TOKEN_LIMIT).',
        tag: 'conversation channel',
        access: 'open',
        errors: [httpErrors.RATE_LIMITED, subsystemErrors.SUBSYSTEM_ERROR],
      },
      { hide: true, response: { 200: chatTokenSchema } },
    ),
    async (request, reply) => {
      admit(request);
      const { token, expires_in, conversationId } = await channel.token({});
      reply.header('cache-control', 'no-store');
      return { token, expires_in, conversationId, domain: chatPage.settings().domain };
    },
  );

  app.post(
    CHAT_SIGN_IN_PATH,
    access.route(
      {
        id: 'signInOnChatPage',
        summary:
          'The chat page’s sign-in: a conversation token bound to the person, linked to their account.',
        description:
          'The person’s pay-TV user name and password are checked by client-api, which opens a session of the chat page’s device (`chat-page`) in their account; their web identity is linked to the account they proved, resting on that session, and the new conversation is bound to it, so the assistant can act on their devices until that session is closed. A wrong user name or password is 401 with a `Form` challenge. Limited per client address with the anonymous tokens (CHAT_TOKEN_LIMIT), and by client-api’s sign-in throttling.',
        tag: 'conversation channel',
        access: 'open',
        errors: [
          chatPageErrors.CHAT_SIGN_IN_FAILED,
          chatPageErrors.CHAT_DEVICE_REFUSED,
          httpErrors.RATE_LIMITED,
          channelErrors.CHANNEL_BINDING_UNSUPPORTED,
          directLineErrors.DIRECTLINE_CHANNEL_BUSY,
          subsystemErrors.SUBSYSTEM_ERROR,
        ],
      },
      { hide: true, body: chatSignInSchema, response: { 200: chatTokenSchema } },
    ),
    async (request, reply) => {
      admit(request);
      const { username, password } = request.body;
      const { token, expires_in, conversationId } = await channel.token({
        speaker: () => chatPage.signIn(username, password, request.ip),
      });
      reply.header('cache-control', 'no-store');
      return { token, expires_in, conversationId, domain: chatPage.settings().domain };
    },
  );

  app.post(
    CHAT_SIGN_OUT_PATH,
    access.route(
      {
        id: 'signOutOnChatPage',
        summary: 'The chat page’s sign-out: ends the sign-in the conversation token speaks for.',
        description:
          'The page sends its current conversation token (`Authorization: Bearer`). The client-api session that sign-in opened, and only that one (every browser signs in as the same device `chat-page`), is closed at client-api; then its assistant user is removed, so the conversation speaks for nobody and the agents get no delegation for it. A token whose sign-in has ended already answers 204 too; an anonymous conversation’s is 409. When client-api cannot be reached, 502 and nothing is removed.',
        tag: 'conversation channel',
        access: 'open',
        errors: [
          directLineErrors.DIRECTLINE_CREDENTIALS_MISSING,
          directLineErrors.DIRECTLINE_CREDENTIALS_INVALID,
          directLineErrors.DIRECTLINE_TOKEN_EXPIRED,
          directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND,
          chatPageErrors.CHAT_NOT_SIGNED_IN,
          channelErrors.CHANNEL_BINDING_UNSUPPORTED,
          subsystemErrors.SUBSYSTEM_ERROR,
        ],
      },
      { hide: true, response: { 204: Type.Null() } },
    ),
    async (request, reply) =>
      noContent(
        reply.header('cache-control', 'no-store'),
        chatPage.signOut(request.headers.authorization, request.id),
      ),
  );
}
