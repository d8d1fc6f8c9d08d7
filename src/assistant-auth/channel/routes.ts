import { subsystemErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { AssistantAuth } from '../composition.ts';
import { channelStreamTokenSchema, channelTokenQuery, channelTokenSchema } from './schemas.ts';

/** `/token` and `/token/wss`: the two Direct Line 3.0 answers the conversation channel gives (public). */
const operations = [
  {
    path: '/token',
    id: 'getChannelToken',
    summary: 'A conversation-channel token and its lifetime.',
    description: 'Direct Line 3.0 tokens/generate.',
    answer: channelTokenSchema,
    method: 'token',
  },
  {
    path: '/token/wss',
    id: 'getChannelStreamToken',
    summary: 'A token bound to a new conversation, with its websocket stream URL.',
    description: 'Direct Line 3.0 conversations.',
    answer: channelStreamTokenSchema,
    method: 'streamToken',
  },
] as const;

export function channelRoutes(app: App, { access, channel }: AssistantAuth): void {
  for (const { path, answer, method, ...described } of operations) {
    app.get(
      path,
      access.route(
        {
          ...described,
          tag: 'conversation channel',
          access: 'public',
          errors: [subsystemErrors.SUBSYSTEM_ERROR],
        },
        { querystring: channelTokenQuery, response: { 200: answer } },
      ),
      async (request) => channel[method]({ userId: request.query.userId }),
    );
  }
}
