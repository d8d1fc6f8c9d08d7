import type { Core } from '../../core/core.ts';
import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { accessDescription, accessHooks, accessSecurity, accessStatuses } from '../access.ts';
import type { ConversationChannel } from './conversation-channel.ts';
import { channelStreamTokenSchema, channelTokenQuery, channelTokenSchema } from './schemas.ts';

/** `/token` and `/token/wss`: tokens of the conversation channel (public). */
export async function registerChannelRoutes(
  app: App,
  core: Core,
  channel: ConversationChannel,
): Promise<void> {
  const common = {
    onRequest: accessHooks(core, 'public'),
  };
  app.get(
    '/token',
    {
      ...common,
      schema: {
        operationId: 'getChannelToken',
        summary: 'A conversation-channel token and its lifetime.',
        description: `Direct Line 3.0 tokens/generate. ${accessDescription('public')}`,
        tags: ['conversation channel'],
        security: accessSecurity('public'),
        querystring: channelTokenQuery,
        response: {
          200: channelTokenSchema,
          ...errorResponses(400, ...accessStatuses('public'), 502),
        },
      },
    },
    async (request) => channel.token({ userId: request.query.userId }),
  );
  app.get(
    '/token/wss',
    {
      ...common,
      schema: {
        operationId: 'getChannelStreamToken',
        summary: 'A token bound to a new conversation, with its websocket stream URL.',
        description: `Direct Line 3.0 conversations. ${accessDescription('public')}`,
        tags: ['conversation channel'],
        security: accessSecurity('public'),
        querystring: channelTokenQuery,
        response: {
          200: channelStreamTokenSchema,
          ...errorResponses(400, ...accessStatuses('public'), 502),
        },
      },
    },
    async (request) => channel.streamToken({ userId: request.query.userId }),
  );
}
