import type { Agent, AgentTurn } from '../agent.ts';
import { AgentConfigException, AgentValidationException } from '../exceptions.ts';
import type { ChatMessage, ModelClient } from './model-client.ts';

const SYSTEM_PROMPT =
  'You are the assistant of Sintonia, a pay-TV service. Help subscribers with the TV guide, recordings, ' +
  'continue watching, their devices and their account. Answer briefly, in the language of the question. ' +
  'Never ask for passwords or payment details.';

/**
 * The chat agent over an OpenAI-compatible chat-completions endpoint. Without a model client (no
 * MODEL_BASE_URL) it is still listed (configured: false) and every call answers 400 AGENT_CONFIG_ERROR
 * saying what to set.
 */
export function createChatAgent(client: ModelClient | undefined, modelName: string): Agent {
  function prepare(turn: AgentTurn): { model: ModelClient; messages: ChatMessage[] } {
    if (!client) {
      throw new AgentConfigException(
        'The chat agent has no model endpoint: set MODEL_BASE_URL (and MODEL_API_KEY).',
      );
    }
    if (turn.input.trim().length === 0) throw new AgentValidationException('The input is empty.');
    return {
      model: client,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: turn.input },
      ],
    };
  }

  return {
    name: 'chat',
    description: `Chat over an OpenAI-compatible model endpoint (model ${modelName}).`,
    configured: () => client !== undefined,
    async invoke(turn) {
      const { model, messages } = prepare(turn);
      const answer = await model.complete(messages, turn.signal);
      return { output: answer.content, model: answer.model };
    },
    async *stream(turn) {
      const { model, messages } = prepare(turn);
      yield* model.stream(messages, turn.signal);
    },
  };
}
