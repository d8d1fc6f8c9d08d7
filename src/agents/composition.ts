import { Registry } from 'prom-client';
import { createAssistantTokenVerifier } from '../core/assistant-tokens.ts';
import type { Core } from '../core/core.ts';
import { createStoreCounter } from '../core/limits/store-counter.ts';
import { type Agent, createAgentRegistry } from './agent.ts';
import { createAssistantAgent } from './assistant/assistant-agent.ts';
import { AGENTS_AUDIENCE, requireAgentCaller } from './auth.ts';
import { createChatAgent } from './chat/chat-agent.ts';
import { createChatHistory } from './chat/history.ts';
import { configuredModelClient } from './chat/model-client.ts';
import { type AgentMetrics, countedAgent, createAgentMetrics, uncounted } from './metrics.ts';
import type { AgentsServer } from './routes.ts';
import { createRunLimits, limitedAgent } from './run-limits.ts';
import { createAccountClient } from './tools/account-client.ts';
import type { AccountAccess } from './tools/account-tools.ts';
import { createConfirmations } from './tools/confirmations.ts';

/** The agents the server registers: the embedded assistant and the chat agent over its model client. */
export function defaultAgents(core: Core, metrics: AgentMetrics = uncounted): Agent[] {
  const { config } = core;
  const modelClient = configuredModelClient(config);
  if (!modelClient) core.logger.info('chat agent not configured: set MODEL_BASE_URL');
  // Both agents act on a linked person's account with the same client and confirmations.
  const accounts: AccountAccess = {
    client: createAccountClient({ config, serviceUrl: (name) => core.serviceUrl(name) }),
    confirmations: createConfirmations(
      { database: core.database, key: (purpose) => core.key(purpose) },
      Date.now,
      metrics.confirmation,
    ),
    metrics,
    limits: { maxDevicesPerAccount: config.MAX_DEVICES_PER_ACCOUNT },
  };
  return [
    createAssistantAgent(
      {
        maxDevicesPerAccount: config.MAX_DEVICES_PER_ACCOUNT,
        deviceDeleteCooldownSeconds: config.DEVICE_DELETE_COOLDOWN,
      },
      accounts,
    ),
    createChatAgent(
      modelClient,
      config.MODEL_NAME,
      accounts,
      createChatHistory({
        database: core.database,
        key: (purpose) => core.key(purpose),
        budgetTokens: config.CHAT_HISTORY_TOKENS,
        maxTurns: config.CHAT_HISTORY_TURNS,
      }),
    ),
  ];
}

/** Builds the agents a server registers; `metrics` is where they count their tool calls and confirmations. */
export type AgentsOf = (core: Core, metrics: AgentMetrics) => readonly Agent[];

/**
 * The agents server's one composition root, built once per app (service.ts): the registry of the agents
 * `agentsOf` builds (tests pass their own), each counted on `metricsRegistry` (the service's /metrics) and
 * admitted by the run limits (docs/limits.md), and the caller check. Routes receive it and build nothing.
 */
export function composeAgents(
  core: Core,
  agentsOf: AgentsOf = defaultAgents,
  metricsRegistry: Registry = new Registry(),
): AgentsServer {
  const metrics = createAgentMetrics(metricsRegistry);
  // A turn refused at a limit never starts, so it is counted as a refusal, not as a run.
  const limits = createRunLimits(core.config, createStoreCounter(core.database), (limit) =>
    core.metrics.limitRefused(limit),
  );
  const admitted = (agent: Agent) => limitedAgent(countedAgent(agent, metrics), limits);
  return {
    registry: createAgentRegistry(agentsOf(core, metrics).map(admitted)),
    requireCaller: requireAgentCaller(core.apiKeys, createAssistantTokenVerifier(core, AGENTS_AUDIENCE)),
  };
}
