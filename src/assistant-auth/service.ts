import fastifyWebsocket from '@fastify/websocket';
import { runWhileOpen, type ServiceDefinition, typed } from '../core/http/service-app.ts';
import { callbackRoutes } from './callbacks/routes.ts';
import { channelRoutes } from './channel/routes.ts';
import { chatPageRoutes } from './chat-page/routes.ts';
import { composeAssistantAuth } from './composition.ts';
import { directLineRoutes } from './directline/routes.ts';
import { monitoringRoutes } from './monitoring/routes.ts';
import { assistantAuthOpenApi } from './openapi.ts';
import { signingRoutes } from './signing/routes.ts';
import { userRoutes } from './users/routes.ts';

/** Assistant-auth's routes, top to bottom: one line per resource. */
const routes = [
  userRoutes,
  callbackRoutes,
  signingRoutes,
  channelRoutes,
  directLineRoutes,
  chatPageRoutes,
  monitoringRoutes,
];

/** The demo web user with a (fictitious) phone number: what GET /users/assistant-id returns for these headers. */
const DEMO = { channel: 'web', identity: 'demo-web-user', phoneNumber: '+34600000001' } as const;

export const assistantAuthService: ServiceDefinition = {
  name: 'assistant-auth',
  openapi: assistantAuthOpenApi,
  async plugin(instance, { core, metrics }) {
    const app = typed(instance);
    const api = composeAssistantAuth(core, metrics);
    const created = await api.signingKeys.ensure();
    if (created.length > 0) core.logger.info({ kids: created }, 'created the assistant signing keys');
    // The embedded channel's stream is a websocket route: the plugin must be there before the route.
    if (api.directLine)
      await app.register(fastifyWebsocket, { options: { maxPayload: core.config.BODY_LIMIT } });
    // The workers start once the app is ready and stop, the Direct Line answers under way finished, at close.
    runWhileOpen(app, api.retention, ...(api.directLine ? [api.directLine] : []));
    for (const register of routes) register(app, api);
  },
  async seedDemo(core) {
    const { user } = await composeAssistantAuth(core).users.findOrCreate({ ...DEMO }, 'channel');
    return {
      assistantUser: {
        assistantId: user.assistantId,
        assistantIdGlobal: user.assistantIdGlobal,
        headers: { 'X-Channel': DEMO.channel, 'X-Channel-User-Id': DEMO.identity },
        phoneNumber: DEMO.phoneNumber,
      },
    };
  },
};
