import type { onRequestAsyncHookHandler } from 'fastify';
import type { KeyClass } from '../../core/api-keys/api-keys.ts';
import { authErrors, subsystemErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { AssistantAuth } from '../composition.ts';
import { directLineErrors } from '../directline/errors.ts';
import { channelErrors } from './errors.ts';
import {
  channelSpeakerHeaders,
  channelStreamTokenSchema,
  channelTokenQuery,
  channelTokenSchema,
} from './schemas.ts';

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

const BINDING =
  'Anonymous without headers. With `X-Channel` and `X-Channel-User-Id` (both, with a `gateway` or `runtime` key only: another class is 403 ACCESS_DENIED, one header alone 400) the conversation is bound to that channel identity’s assistant user, found or created as `GET /users/assistant-id` does, and the agent hears who is speaking; Direct Line itself can neither set nor change the binding. An external Direct Line service (DIRECTLINE_URL) cannot bind: 400 CHANNEL_BINDING_UNSUPPORTED.';

/** The key classes that may bind a conversation to a person: the gateway and the assistant runtime. */
const bindingClasses: readonly KeyClass[] = ['gateway', 'runtime'];

/** Runs after the public access check: the identity headers with a key of another class are refused. */
const bindingAccess: onRequestAsyncHookHandler = async (request) => {
  const { headers, apiKey } = request;
  const binds = headers['x-channel'] !== undefined || headers['x-channel-user-id'] !== undefined;
  if (binds && !(apiKey && bindingClasses.includes(apiKey.keyClass))) {
    throw authErrors.ACCESS_DENIED(
      'Only keys of class gateway or runtime may bind a conversation to a person (X-Channel, X-Channel-User-Id).',
    );
  }
};

export function channelRoutes(app: App, { access, channel, users }: AssistantAuth): void {
  for (const { path, answer, method, description, ...described } of operations) {
    const route = access.route(
      {
        ...described,
        description: `${description} ${BINDING}`,
        tag: 'conversation channel',
        access: 'public',
        errors: [
          authErrors.ACCESS_DENIED,
          channelErrors.CHANNEL_BINDING_UNSUPPORTED,
          channelErrors.CHANNEL_SPEAKER_REMOVED,
          directLineErrors.DIRECTLINE_CHANNEL_BUSY,
          subsystemErrors.SUBSYSTEM_ERROR,
        ],
      },
      { querystring: channelTokenQuery, headers: channelSpeakerHeaders, response: { 200: answer } },
    );
    app.get(path, { ...route, onRequest: [...route.onRequest, bindingAccess] }, async (request) => {
      const { 'x-channel': name, 'x-channel-user-id': identity } = request.headers;
      const speaker =
        name !== undefined && identity !== undefined
          ? async () => (await users.findOrCreate({ channel: name, identity }, 'channel')).user.assistantId
          : undefined;
      return channel[method]({ userId: request.query.userId, ...(speaker ? { speaker } : {}) });
    });
  }
}
