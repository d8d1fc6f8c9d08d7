import { Counter, type Registry } from 'prom-client';
import type { Agent } from './agent.ts';

export type ConfirmationEvent = 'asked' | 'confirmed' | 'declined' | 'expired';

/** The agents server's metrics (docs/observability.md): runs, tool calls and confirmations. */
export interface AgentMetrics {
  /** One agent turn ended: ok, error (it raised), or cancelled (the caller went away). */
  run(agent: string, outcome: 'ok' | 'error' | 'cancelled'): void;
  /** One account tool call ended with this result status (done, refused, confirmation_required…). */
  toolCall(tool: string, outcome: string): void;
  confirmation(event: ConfirmationEvent): void;
}

/** What an agent built without metrics (a test's, an admin command's) counts: nothing. */
export const uncounted: AgentMetrics = { run() {}, toolCall() {}, confirmation() {} };

export function createAgentMetrics(registry: Registry): AgentMetrics {
  const runs = new Counter({
    name: 'sintonia_agent_runs_total',
    help: 'Agent turns (invoke or stream), by agent and outcome: ok, error or cancelled (the caller went away).',
    labelNames: ['agent', 'outcome'],
    registers: [registry],
  });
  const tools = new Counter({
    name: 'sintonia_agent_tool_calls_total',
    help: 'Account tool calls by tool and outcome (the result status: devices, confirmation_required, done, refused…).',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const confirmations = new Counter({
    name: 'sintonia_agent_confirmations_total',
    help: 'Confirmations of changing actions by event: asked, confirmed (the action ran), declined or expired.',
    labelNames: ['event'],
    registers: [registry],
  });
  for (const event of ['asked', 'confirmed', 'declined', 'expired']) confirmations.inc({ event }, 0);
  return {
    run: (agent, outcome) => runs.inc({ agent, outcome }),
    toolCall: (tool, outcome) => tools.inc({ tool, outcome }),
    confirmation: (event) => confirmations.inc({ event }),
  };
}

/** The agent, its turns counted by outcome; everything else is the agent's own. */
export function countedAgent(agent: Agent, metrics: AgentMetrics): Agent {
  const { name } = agent;
  const failed = (signal: AbortSignal) => (signal.aborted ? 'cancelled' : 'error');
  const stream = agent.stream?.bind(agent);
  const textFormat = agent.textFormat?.bind(agent);
  return {
    name,
    description: agent.description,
    configured: () => agent.configured(),
    async invoke(turn) {
      try {
        const answer = await agent.invoke(turn);
        metrics.run(name, 'ok');
        return answer;
      } catch (error) {
        metrics.run(name, failed(turn.signal));
        throw error;
      }
    },
    ...(stream && {
      async *stream(turn) {
        // A stream its reader stops early (the client went away) ends in `finally` without either branch.
        let outcome: 'ok' | 'error' | 'cancelled' = 'cancelled';
        try {
          const extras = yield* stream(turn);
          outcome = 'ok';
          return extras;
        } catch (error) {
          outcome = failed(turn.signal);
          throw error;
        } finally {
          metrics.run(name, outcome);
        }
      },
    }),
    ...(textFormat && { textFormat }),
  };
}
