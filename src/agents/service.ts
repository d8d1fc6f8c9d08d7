import type { Core } from '../core/core.ts';
import { problemHandler } from '../core/http/error-handler.ts';
import { type ServiceDefinition, type ServicePlugin, typed } from '../core/http/service-app.ts';
import { type Agent, createAgentRegistry } from './agent.ts';
import { createAssistantAgent } from './assistant/assistant-agent.ts';
import { requireAgentCaller } from './auth.ts';
import { createChatAgent } from './chat/chat-agent.ts';
import { configuredModelClient } from './chat/model-client.ts';
import { agentProblemPolicy } from './error-policy.ts';
import { agentsOpenApi } from './openapi.ts';
import { agentRoutes } from './routes.ts';
import { createAccountClient } from './tools/account-client.ts';
import { createConfirmations } from './tools/confirmations.ts';

/** The agents the server registers: the embedded assistant and the chat agent over its model client. */
function defaultAgents(core: Core): Agent[] {
  const modelClient = configuredModelClient(core.config);
  if (!modelClient) core.logger.info('chat agent not configured: set MODEL_BASE_URL');
  // Both agents act on a linked person's account with the same tools and confirmations.
  const accounts = { client: createAccountClient(core), confirmations: createConfirmations(core) };
  return [
    createAssistantAgent(
      {
        maxDevicesPerAccount: core.config.MAX_DEVICES_PER_ACCOUNT,
        deviceDeleteCooldownSeconds: core.config.DEVICE_DELETE_COOLDOWN,
      },
      accounts,
    ),
    createChatAgent(modelClient, core.config.MODEL_NAME, accounts),
  ];
}

/**
 * The agents server's composition root over the agents `agentsOf` builds (tests pass their own): the
 * registry, the caller check and its error handling, for its routes only (the core's probes keep the
 * family's).
 */
export function agentsPlugin(agentsOf: (core: Core) => readonly Agent[] = defaultAgents): ServicePlugin {
  return async (instance, { core }) => {
    const app = typed(instance);
    app.setErrorHandler(problemHandler(agentProblemPolicy));
    agentRoutes(app, {
      registry: createAgentRegistry(agentsOf(core)),
      requireCaller: requireAgentCaller(core),
    });
  };
}

/** The agents server. */
export const agentsService: ServiceDefinition = {
  name: 'agents',
  metricsAccess: 'open',
  openapi: agentsOpenApi,
  plugin: agentsPlugin(),
};
