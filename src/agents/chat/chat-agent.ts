import type { Agent, AgentAnswer, AgentTurn } from '../agent.ts';
import { cancelled, linkFirst, say } from '../assistant/account-answers.ts';
import { accountRequestOf } from '../assistant/account-intents.ts';
import { type Language, languageOf } from '../assistant/language.ts';
import { AgentConfigException, AgentModelError, AgentValidationException } from '../exceptions.ts';
import {
  type AccountAccess,
  type AccountTools,
  accountToolNames,
  accountToolSpecs,
  createAccountTools,
  type ToolResult,
} from '../tools/account-tools.ts';
import type { ConfirmationOwner } from '../tools/confirmations.ts';
import type { ChatHistory, HistoryOwner } from './history.ts';
import {
  assistantToolMessage,
  type ChatMessage,
  type ModelClient,
  type ToolCall,
  type ToolDefinition,
} from './model-client.ts';

const SYSTEM_PROMPT =
  'You are the assistant of Sintonia, a pay-TV service. Help subscribers with the TV guide, recordings, ' +
  'continue watching, their devices and their account. Answer briefly, in the language of the question. ' +
  'Never ask for passwords or payment details.';

const TOOLS_PROMPT =
  ' The person is signed in: use the tools to look at or change the devices of their account. A change ' +
  'is only asked for by a tool; the person confirms it with a yes, outside your reach. When a tool says a ' +
  'device name fits several devices or none, ask which one they mean. The tools also tell what they were ' +
  'watching and where they stopped (content ids and positions in seconds), how many more devices fit, and ' +
  'sign out everywhere. A device signed out is not disabled: say which. For the household they tell who ' +
  "is watching at home (each device playing, its content id and position, the account's screens at " +
  'once), tell a device to stop, pause or resume, and move what one device plays to another (continue ' +
  'on another TV): those are changes too, run after a yes.';

/** Said to the model whenever a turn may quote account data: such answers are shown as plain text. */
const PLAIN_TEXT_PROMPT = ' Write plain text without markdown: your answer is shown exactly as written.';

/** Rounds of tool calls a turn may take before the model has to answer. */
const MAX_TOOL_ROUNDS = 4;

/** The account tools as the model sees them (chat-completions `tools`). */
const modelTools: ToolDefinition[] = accountToolNames.map((name) => ({
  name,
  description: accountToolSpecs[name].description,
  parameters: accountToolSpecs[name].parameters,
}));

/** How one turn goes: the messages so far, and the account tools when the speaker may use them. */
interface TurnPlan {
  model: ModelClient;
  messages: ChatMessage[];
  language: Language;
  tools?: AccountTools;
  /** Answered without the model: a yes / no to a confirmation, or an unlinked person's account request. */
  settled?: AgentAnswer;
  /** Where this turn's own messages start in `messages` (before: the system prompt and the history). */
  from: number;
}

/** The arguments the model wrote, parsed; a problem the model can read when they are not a JSON object. */
function parsedArguments(call: ToolCall): unknown {
  try {
    return JSON.parse(call.arguments || '{}');
  } catch {
    return undefined;
  }
}

/**
 * The chat agent over an OpenAI-compatible chat-completions endpoint. Without a model client (no
 * MODEL_BASE_URL) it is still listed (configured: false) and every call answers 400 AGENT_CONFIG_ERROR
 * saying what to set. For a person the channel bound to a linked account it offers the account tools to
 * its model; a change the model asks for becomes a confirmation request (yes / no), which the person's
 * next turn settles without the model: only that confirmation runs it.
 */
export function createChatAgent(
  client: ModelClient | undefined,
  modelName: string,
  accounts?: AccountAccess,
  history?: ChatHistory,
): Agent {
  /** The memory is per caller, conversation and speaker; a turn outside a conversation has none. */
  const ownerOf = (turn: AgentTurn): HistoryOwner | undefined =>
    history && turn.conversationId
      ? { conversationId: turn.conversationId, caller: turn.caller, assistantId: turn.speaker?.assistantId }
      : undefined;

  /** The system prompt, the remembered turns, then the person's words. */
  async function conversation(
    turn: AgentTurn,
    system: string,
  ): Promise<{ messages: ChatMessage[]; from: number }> {
    const owner = ownerOf(turn);
    const recalled = owner && history ? await history.recall(owner) : [];
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      ...recalled,
      { role: 'user', content: turn.input },
    ];
    return { messages, from: messages.length - 1 };
  }

  /** Remembers the turn: its messages from the person's words on, and the answer they got. */
  async function remember(turn: AgentTurn, messages: ChatMessage[], answer: string): Promise<void> {
    const owner = ownerOf(turn);
    if (!owner || !history) return;
    await history.remember(owner, [...messages, { role: 'assistant', content: answer }]);
  }
  const said = (turn: AgentTurn): ChatMessage[] => [{ role: 'user', content: turn.input }];

  async function plan(turn: AgentTurn): Promise<TurnPlan> {
    if (!client) {
      throw new AgentConfigException(
        'The chat agent has no model endpoint: set MODEL_BASE_URL (and MODEL_API_KEY).',
      );
    }
    if (turn.input.trim().length === 0) throw new AgentValidationException('The input is empty.');
    const language = languageOf(turn.input, turn.locale);
    const base = { model: client, language, from: 0 };
    const speaker = turn.speaker?.assistantId;
    if (!accounts || !speaker) return { ...base, ...(await conversation(turn, SYSTEM_PROMPT)) };
    const owner: ConfirmationOwner = { assistantId: speaker, conversationId: turn.conversationId ?? '' };
    const request = accountRequestOf(turn.input);
    if (request?.kind === 'no') {
      return {
        ...base,
        messages: [],
        settled: cancelled(language, await accounts.confirmations.cancel(owner)),
      };
    }
    const linked = await accounts.client.forSpeaker(speaker, turn.requestId);
    if (!linked.linked) {
      await accounts.confirmations.cancel(owner);
      // The model may still chat; it is told to send the person to account linking for account data.
      if (request?.kind === 'tool') return { ...base, messages: [], settled: linkFirst(language) };
      return {
        ...base,
        ...(await conversation(turn, `${SYSTEM_PROMPT} ${linkFirst('en').output}${PLAIN_TEXT_PROMPT}`)),
      };
    }
    const tools = createAccountTools(linked.session, accounts.confirmations, owner, accounts);
    if (request?.kind === 'yes')
      return { ...base, messages: [], settled: say(await tools.confirm(), language) };
    // Anything else than a yes or no cancels what was waiting for one.
    await tools.cancel();
    return {
      ...base,
      tools,
      ...(await conversation(turn, SYSTEM_PROMPT + TOOLS_PROMPT + PLAIN_TEXT_PROMPT)),
    };
  }

  /** Runs the model's calls; a confirmation request ends the turn (the person must answer it). */
  async function runCalls(
    tools: AccountTools,
    calls: ToolCall[],
    messages: ChatMessage[],
    content: string,
  ): Promise<ToolResult | undefined> {
    messages.push(assistantToolMessage(content, calls));
    for (const call of calls) {
      const args = parsedArguments(call);
      const result: ToolResult =
        args === undefined
          ? { status: 'invalid_arguments', tool: call.name, problems: ['the arguments are not JSON'] }
          : await tools.call(call.name, args);
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
      if (result.status === 'confirmation_required') {
        // The turn ends here, waiting for the person; the calls after this one did not run.
        for (const rest of calls.slice(calls.indexOf(call) + 1)) {
          messages.push({
            role: 'tool',
            tool_call_id: rest.id,
            content: JSON.stringify({ status: 'not_run' }),
          });
        }
        return result;
      }
    }
    return undefined;
  }

  const tooManyRounds = () =>
    new AgentModelError(`The model kept calling tools for ${MAX_TOOL_ROUNDS} rounds without answering.`, {
      service_error_code: 'tool_loop',
      service_name: client?.serviceName,
    });

  return {
    name: 'chat',
    description: `Chat over an OpenAI-compatible model endpoint (model ${modelName}); for a linked person, the account tools.`,
    configured: () => client !== undefined,
    // A person's turn may quote device names others chose; an anonymous one holds only its own words.
    textFormat: (turn) => (accounts && turn.speaker ? 'plain' : 'markdown'),
    async invoke(turn) {
      const { model, messages, tools, settled, language, from } = await plan(turn);
      if (settled) {
        await remember(turn, said(turn), settled.output);
        return settled;
      }
      for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
        const answer = await model.complete(messages, turn.signal, tools ? modelTools : undefined);
        if (!tools || answer.toolCalls.length === 0) {
          await remember(turn, messages.slice(from), answer.content);
          return { output: answer.content, model: answer.model };
        }
        const asked = await runCalls(tools, answer.toolCalls, messages, answer.content);
        if (asked) {
          const question = say(asked, language);
          await remember(turn, messages.slice(from), question.output);
          return { ...question, model: answer.model };
        }
      }
      throw tooManyRounds();
    },
    async *stream(turn) {
      const { model, messages, tools, settled, language, from } = await plan(turn);
      if (settled) {
        await remember(turn, said(turn), settled.output);
        const { output, ...extras } = settled;
        yield output;
        return extras;
      }
      for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
        let text = '';
        let calls: ToolCall[] = [];
        for await (const event of model.stream(messages, turn.signal, tools ? modelTools : undefined)) {
          if (event.kind === 'text') {
            text += event.text;
            yield event.text;
          } else calls = event.calls;
        }
        if (!tools || calls.length === 0) {
          await remember(turn, messages.slice(from), text);
          return undefined;
        }
        const asked = await runCalls(tools, calls, messages, text);
        if (asked) {
          const { output, ...extras } = say(asked, language);
          await remember(turn, messages.slice(from), output);
          yield output;
          // The yes / no buttons go with the end of the answer.
          return extras;
        }
      }
      throw tooManyRounds();
    },
  };
}
