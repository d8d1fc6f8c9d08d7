import { createHash } from 'node:crypto';
import type { Config } from '../core/config.ts';
import type { StoreCounter } from '../core/limits/store-counter.ts';
import type { Agent, AgentTurn } from './agent.ts';
import { AgentRateLimitError } from './exceptions.ts';

export type RunLimitSettings = Pick<
  Config,
  'AGENT_RUNS_PER_MINUTE' | 'AGENT_RUNS_PER_MINUTE_TOTAL' | 'AGENT_CONCURRENT_RUNS'
>;

/** The names the refusals are counted by in /metrics (`sintonia_limit_refusals_total{limit}`). */
export type RunLimit = 'agent_runs_per_party' | 'agent_runs_total' | 'agent_concurrent_runs';

/**
 * Who a turn is counted against: the person speaking when the channel bound the conversation, else the
 * conversation (its caller's), else the caller itself.
 */
export function partyOf(turn: AgentTurn): string {
  if (turn.speaker) return `person:${turn.speaker.assistantId}`;
  const caller = turn.caller ?? 'unknown';
  return turn.conversationId === undefined ? caller : `${caller}\u0000${turn.conversationId}`;
}

/** Admits a turn or throws AgentRateLimitError (429, Retry-After); the answer frees its place when done. */
export interface RunLimits {
  admit(turn: AgentTurn): Promise<() => void>;
}

export function createRunLimits(
  settings: RunLimitSettings,
  counter: StoreCounter,
  refused: (limit: RunLimit) => void,
): RunLimits {
  let running = 0;
  const refuse = (limit: RunLimit, message: string, retryAfter: number) => {
    refused(limit);
    return new AgentRateLimitError(message, { retry_after: String(retryAfter) });
  };
  return {
    async admit(turn) {
      // The cheapest check first: a process already running its share answers at once.
      if (running >= settings.AGENT_CONCURRENT_RUNS) {
        throw refuse('agent_concurrent_runs', 'The agents server is answering as many turns as it may.', 1);
      }
      const party = createHash('sha256').update(partyOf(turn)).digest('base64url');
      const own = await counter.add(`agent:runs:${party}`, 1, 60);
      if (own.total > settings.AGENT_RUNS_PER_MINUTE) {
        throw refuse(
          'agent_runs_per_party',
          `At most ${settings.AGENT_RUNS_PER_MINUTE} turns a minute for one person or conversation.`,
          own.retryAfter,
        );
      }
      const all = await counter.add('agent:runs', 1, 60);
      if (all.total > settings.AGENT_RUNS_PER_MINUTE_TOTAL) {
        throw refuse(
          'agent_runs_total',
          'The agents server takes no more turns this minute.',
          all.retryAfter,
        );
      }
      running += 1;
      let freed = false;
      return () => {
        if (freed) return;
        freed = true;
        running -= 1;
      };
    },
  };
}

/** The agent, each turn admitted by `limits` first and its place freed when it ends, however it ends. */
export function limitedAgent(agent: Agent, limits: RunLimits): Agent {
  const stream = agent.stream?.bind(agent);
  const textFormat = agent.textFormat?.bind(agent);
  return {
    name: agent.name,
    description: agent.description,
    configured: () => agent.configured(),
    async invoke(turn) {
      const free = await limits.admit(turn);
      try {
        return await agent.invoke(turn);
      } finally {
        free();
      }
    },
    ...(stream && {
      async *stream(turn) {
        const free = await limits.admit(turn);
        try {
          return yield* stream(turn);
        } finally {
          free();
        }
      },
    }),
    ...(textFormat && { textFormat }),
  };
}
