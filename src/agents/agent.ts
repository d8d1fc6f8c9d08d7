import { AgentNotFoundException } from './exceptions.ts';
import type { AnswerAttachment, SuggestedActions, TextFormat, TurnAttachment } from './schemas.ts';

/** One turn of a conversation, as an agent receives it. */
export interface AgentTurn {
  input: string;
  conversationId?: string;
  /** The user's locale, when the channel knows it. */
  locale?: string;
  /** Files the user sent with this turn. */
  attachments?: TurnAttachment[];
  /**
   * The assistant user speaking, known only when the assistant signed the call for a conversation bound
   * to a person (never from the request body): the account tools act for this person's linked account.
   */
  speaker?: { assistantId: string };
  /**
   * Who called, as limits and memory tell callers apart (never from the request body): `key:<id>` for an
   * API key, `channel:<name>` for the assistant's channel signing for this very conversation.
   */
  caller?: string;
  /** Aborted when the caller goes away: pass it to every call the agent makes. */
  signal: AbortSignal;
  /** The id of the request that brought the turn: the calls it makes to the family send it on. */
  requestId?: string;
}

/** What an answer carries besides its text. */
export type AnswerExtras = Omit<AgentAnswer, 'output'>;

export interface AgentAnswer {
  output: string;
  /** The model that answered, when there is one. */
  model?: string;
  /** Quick replies the channel offers with the answer (Direct Line renders them as buttons). */
  suggestedActions?: SuggestedActions;
  attachments?: AnswerAttachment[];
}

/**
 * What every agent implements. Agents raise the exceptions of `exceptions.ts`; `stream` is optional
 * (without it the server streams the whole answer as one chunk).
 */
export interface Agent {
  readonly name: string;
  readonly description: string;
  /** False when the agent cannot answer as configured: it is still listed, and calls answer 400. */
  configured(): boolean;
  invoke(turn: AgentTurn): Promise<AgentAnswer>;
  /** The answer's text in chunks; what goes with the text (buttons, attachments) is the return value. */
  stream?(turn: AgentTurn): AsyncGenerator<string, AnswerExtras | undefined>;
  /**
   * How channels show this turn's answer, decided before it starts so a stream's first chunk says it:
   * `markdown` only for an answer that quotes nothing a person or a device controls. Absent: `plain`.
   */
  textFormat?(turn: AgentTurn): TextFormat;
}

export interface AgentRegistry {
  list(): Agent[];
  /** Throws AgentNotFoundException (404) for an unknown name. */
  get(name: string): Agent;
}

/** The agents, registered by name; a duplicate name is a programming error. */
export function createAgentRegistry(agents: readonly Agent[]): AgentRegistry {
  const byName = new Map<string, Agent>();
  for (const agent of agents) {
    if (byName.has(agent.name)) throw new Error(`two agents are named ${agent.name}`);
    byName.set(agent.name, agent);
  }
  return {
    list: () => [...byName.values()],
    get(name) {
      const agent = byName.get(name);
      if (!agent) throw new AgentNotFoundException(`No agent is named ${name}.`);
      return agent;
    },
  };
}

/** The turn's text format: the agent's, else plain (showing markdown as text loses less than a link). */
export function textFormatOf(agent: Agent, turn: AgentTurn): TextFormat {
  return agent.textFormat?.(turn) ?? 'plain';
}

/**
 * The agent's answer as chunks of text: its own stream, or its whole answer as one chunk; the return value
 * is what goes with the text (suggested actions, attachments).
 */
export async function* agentChunks(
  agent: Agent,
  turn: AgentTurn,
): AsyncGenerator<string, AnswerExtras | undefined> {
  if (agent.stream) return yield* agent.stream(turn);
  const { output, ...extras } = await agent.invoke(turn);
  yield output;
  return extras;
}
