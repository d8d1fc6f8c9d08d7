import { retentionJob } from '../core/db/retention.ts';
import { problemHandler } from '../core/http/error-handler.ts';
import { runWhileOpen, type ServiceDefinition, type ServicePlugin, typed } from '../core/http/service-app.ts';
import { chatHistoryRetention } from './chat/history.ts';
import { type AgentsOf, composeAgents, defaultAgents } from './composition.ts';
import { agentProblemPolicy } from './error-policy.ts';
import { agentsOpenApi } from './openapi.ts';
import { agentRoutes } from './routes.ts';

/**
 * The agents server's plugin over the agents `agentsOf` builds (tests pass their own): its routes with
 * the caller check and its error handling, for its routes only (the core's probes keep the family's).
 */
export function agentsPlugin(agentsOf: AgentsOf = defaultAgents): ServicePlugin {
  return async (instance, { core, metrics }) => {
    const app = typed(instance);
    app.setErrorHandler(problemHandler(agentProblemPolicy));
    agentRoutes(app, composeAgents(core, agentsOf, metrics));
    // What the chat agent remembers goes after CHAT_HISTORY_RETENTION (docs/retention.md).
    runWhileOpen(
      app,
      retentionJob(
        core.database,
        [chatHistoryRetention(core.config)],
        core.config,
        core.logger.child({ component: 'retention' }),
      ),
    );
  };
}

/** The agents server. */
export const agentsService: ServiceDefinition = {
  name: 'agents',
  openapi: agentsOpenApi,
  plugin: agentsPlugin(),
};
