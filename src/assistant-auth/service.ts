import type { Core } from '../core/core.ts';
import { type ServiceDefinition, typed } from '../core/http/service-app.ts';
import { registerCallbackRoutes } from './callbacks/routes.ts';
import { registerChannelRoutes } from './channel/routes.ts';
import { isEmbedded, selectConversationChannel } from './channel/select-channel.ts';
import { registerMonitoringRoutes } from './monitoring/routes.ts';
import { assistantAuthOpenApi } from './openapi.ts';
import { registerSigningRoutes } from './signing/routes.ts';
import { createAssistantSigner } from './signing/signer.ts';
import { ensureSigningKeys } from './signing/signing-keys.ts';
import { registerUserRoutes } from './users/routes.ts';
import { createUserService, type UserService } from './users/service.ts';

const PURGE_INTERVAL_MS = 3600_000;

/** Expired users past their retention go; a failure is logged and retried at the next interval. */
async function purgeExpiredUsers(core: Core, users: UserService): Promise<void> {
  try {
    const removed = await users.purgeExpired();
    if (removed > 0) core.logger.info({ removed }, 'removed expired assistant users past their retention');
  } catch (error) {
    core.logger.warn({ err: error }, 'purging expired assistant users failed');
  }
}

export const assistantAuthService: ServiceDefinition = {
  name: 'assistant-auth',
  metricsAccess: 'any',
  openapi: assistantAuthOpenApi,
  async plugin(instance, { core }) {
    const app = typed(instance);
    const created = await ensureSigningKeys(core);
    if (created.length > 0) core.logger.info({ kids: created }, 'created the assistant signing keys');
    const signer = createAssistantSigner(core);
    const channel = selectConversationChannel(core, signer);

    const users = createUserService(core);
    await purgeExpiredUsers(core, users);
    const purging = setInterval(() => void purgeExpiredUsers(core, users), PURGE_INTERVAL_MS);
    purging.unref();
    app.addHook('onClose', async () => clearInterval(purging));

    // The routes, top to bottom.
    await registerUserRoutes(app, core, users);
    await registerCallbackRoutes(app, core, users);
    await registerSigningRoutes(app, core, signer);
    await registerChannelRoutes(app, core, channel);
    if (isEmbedded(channel)) await channel.registerRoutes(app);
    await registerMonitoringRoutes(app, core);
  },
  async seedDemo(core) {
    // One web user with a (fictitious) phone number: what GET /users/assistant-id returns for these headers.
    const demo = { channel: 'web', identity: 'demo-web-user', phoneNumber: '+34600000001' };
    const { user } = await createUserService(core).findOrCreate(demo, 'channel');
    return {
      assistantUser: {
        assistantId: user.assistantId,
        assistantIdGlobal: user.assistantIdGlobal,
        headers: { 'X-Channel': demo.channel, 'X-Channel-User-Id': demo.identity },
        phoneNumber: demo.phoneNumber,
      },
    };
  },
};
