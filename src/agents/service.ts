import { problemHandler } from '../core/http/error-handler.ts';
import { type ServiceDefinition, typed } from '../core/http/service-app.ts';
import { createAgentRegistry } from './agent.ts';
import { createAssistantAgent } from './assistant/assistant-agent.ts';
import { createChatAgent } from './chat/chat-agent.ts';
import { agentProblemPolicy } from './error-managers.ts';
import { agentsOpenApi } from './openapi.ts';
import { registerAgentRoutes } from './routes.ts';

/** Area C: the agents server. */
export const agentsService: ServiceDefinition = {
  name: 'agents',
  metricsAccess: 'open',
  openapi: agentsOpenApi,
  async plugin(instance, { core }) {
    const app = typed(instance);
    // The agents server's own error handling, for its routes only (the core's probes keep the family's).
    app.setErrorHandler(problemHandler(agentProblemPolicy));
    const registry = createAgentRegistry([
      createAssistantAgent({
        maxDevicesPerAccount: core.config.MAX_DEVICES_PER_ACCOUNT,
        deviceDeleteCooldownSeconds: core.config.DEVICE_DELETE_COOLDOWN,
      }),
      createChatAgent(core.config),
    ]);
    if (!core.config.MODEL_BASE_URL) core.logger.info('chat agent not configured: set MODEL_BASE_URL');
    await registerAgentRoutes(app, core, registry);
  },
};
