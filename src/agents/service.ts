import type { Core } from '../core/core.ts';
import { problemHandler } from '../core/http/error-handler.ts';
import { type ServiceDefinition, type ServicePlugin, typed } from '../core/http/service-app.ts';
import type { Agent } from './agent.ts';
import { composeAgents, defaultAgents } from './composition.ts';
import { agentProblemPolicy } from './error-policy.ts';
import { agentsOpenApi } from './openapi.ts';
import { agentRoutes } from './routes.ts';

/**
 * The agents server's plugin over the agents `agentsOf` builds (tests pass their own): its routes with
 * the caller check and its error handling, for its routes only (the core's probes keep the family's).
 */
export function agentsPlugin(agentsOf: (core: Core) => readonly Agent[] = defaultAgents): ServicePlugin {
  return async (instance, { core }) => {
    const app = typed(instance);
    app.setErrorHandler(problemHandler(agentProblemPolicy));
    agentRoutes(app, composeAgents(core, agentsOf));
  };
}

/** The agents server. */
export const agentsService: ServiceDefinition = {
  name: 'agents',
  metricsAccess: 'open',
  openapi: agentsOpenApi,
  plugin: agentsPlugin(),
};
