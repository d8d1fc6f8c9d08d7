import type { Config } from '../../core/config.ts';
import { modelFailures, type UpstreamError } from './model-failures.ts';
import { readServerSentData } from './sse-reader.ts';

/** A function the model asked to call, with its arguments as the JSON text the model wrote. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ModelToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call as the chat-completions API writes it. */
interface ModelToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A function offered to the model (the chat-completions `tools` entries). */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: unknown;
}

/** The model's turn: text, or calls of the offered tools (or both). */
export interface ModelTurn {
  content: string;
  toolCalls: ToolCall[];
  model: string;
}

/** What a streamed turn yields: text as it comes, then the tool calls the model asked for, if any. */
export type ModelEvent = { kind: 'text'; text: string } | { kind: 'tool-calls'; calls: ToolCall[] };

/** An assistant message that carries the model's tool calls, to send back with their results. */
export function assistantToolMessage(content: string, calls: ToolCall[]): ChatMessage {
  return {
    role: 'assistant',
    content: content.length > 0 ? content : null,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}

export interface ModelClientOptions {
  /** OpenAI-compatible base URL, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Invoke: time to the whole answer. Stream: time to the first byte and longest silence after. */
  timeoutMs: number;
}

export interface ModelClient {
  /** Names the upstream in error messages (`Service: <host>`). */
  readonly serviceName: string;
  complete(
    messages: ChatMessage[],
    signal: AbortSignal,
    tools?: readonly ToolDefinition[],
  ): Promise<ModelTurn>;
  stream(
    messages: ChatMessage[],
    signal: AbortSignal,
    tools?: readonly ToolDefinition[],
  ): AsyncGenerator<ModelEvent>;
}

interface WireToolCall {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

interface Completion {
  model?: unknown;
  choices?: Array<{
    message?: { content?: unknown; tool_calls?: WireToolCall[] };
    delta?: { content?: unknown; tool_calls?: WireToolCall[] };
  }>;
  error?: UpstreamError['error'];
}

/** A timer that aborts the call when the upstream stays silent too long; re-armed on every chunk. */
function silenceTimer(timeoutMs: number) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error('model timeout')), timeoutMs);
  };
  arm();
  return { signal: controller.signal, arm, stop: () => clearTimeout(timer) };
}

/** The OpenAI-compatible chat-completions client of the chat agent, over fetch. */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const serviceName = new URL(options.baseUrl).host;
  const { failure, rejection, failedWhileAnswering, malformed } = modelFailures({ ...options, serviceName });

  async function post(
    messages: ChatMessage[],
    stream: boolean,
    caller: AbortSignal,
    silence: AbortSignal,
    tools: readonly ToolDefinition[] | undefined,
  ) {
    const offered =
      tools && tools.length > 0
        ? {
            tools: tools.map((tool) => ({
              type: 'function',
              function: { name: tool.name, description: tool.description, parameters: tool.parameters },
            })),
          }
        : {};
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: stream ? 'text/event-stream' : 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: options.model, messages, stream, ...offered }),
        signal: AbortSignal.any([caller, silence]),
      });
    } catch (error) {
      throw failure(error, caller, silence, 'could not be reached');
    }
    if (!response.ok) throw await rejection(response, caller);
    return response;
  }

  return {
    serviceName,
    async complete(messages, signal, tools) {
      const silence = silenceTimer(options.timeoutMs);
      try {
        const response = await post(messages, false, signal, silence.signal, tools);
        let completion: Completion;
        try {
          completion = (await response.json()) as Completion;
        } catch (error) {
          if (signal.aborted || silence.signal.aborted)
            throw failure(error, signal, silence.signal, 'broke off its answer');
          throw malformed('a body that is not JSON');
        }
        const message = completion.choices?.[0]?.message;
        const content = message?.content;
        const toolCalls = (message?.tool_calls ?? []).map((call, index) => wholeCall(call, index));
        if (toolCalls.some((call) => call === undefined)) throw malformed('a tool call without a name');
        if (typeof content !== 'string' && toolCalls.length === 0) throw malformed('no message content');
        return {
          content: typeof content === 'string' ? content : '',
          toolCalls: toolCalls.filter((call): call is ToolCall => call !== undefined),
          model: typeof completion.model === 'string' ? completion.model : options.model,
        };
      } finally {
        silence.stop();
      }
    },
    async *stream(messages, signal, tools) {
      const silence = silenceTimer(options.timeoutMs);
      // Streamed tool calls arrive in pieces, by index: the id and name first, the arguments in parts.
      const pieces = new Map<number, { id: string; name: string; arguments: string }>();
      const calls = (): ModelEvent[] => {
        if (pieces.size === 0) return [];
        const assembled = [...pieces.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
        if (assembled.some((call) => call.name === '')) throw malformed('a tool call without a name');
        return [{ kind: 'tool-calls', calls: assembled }];
      };
      try {
        const response = await post(messages, true, signal, silence.signal, tools);
        if (!response.body) throw malformed('an empty body');
        try {
          for await (const data of readServerSentData(response.body)) {
            silence.arm();
            if (data === '[DONE]') {
              yield* calls();
              return;
            }
            const chunk = JSON.parse(data) as Completion;
            if (chunk.error) throw failedWhileAnswering(chunk);
            const delta = chunk.choices?.[0]?.delta;
            const content = delta?.content;
            if (typeof content === 'string' && content.length > 0) yield { kind: 'text', text: content };
            for (const part of delta?.tool_calls ?? []) {
              const index = typeof part.index === 'number' ? part.index : 0;
              const call = pieces.get(index) ?? { id: '', name: '', arguments: '' };
              if (typeof part.id === 'string') call.id = part.id;
              if (typeof part.function?.name === 'string') call.name += part.function.name;
              if (typeof part.function?.arguments === 'string') call.arguments += part.function.arguments;
              pieces.set(index, call);
            }
          }
          yield* calls();
        } catch (error) {
          if (error instanceof SyntaxError) throw malformed('an event that is not JSON');
          throw failure(error, signal, silence.signal, 'broke off its answer');
        }
      } finally {
        silence.stop();
      }
    },
  };
}

/** A complete (non-streamed) tool call; undefined when it has no function name. */
function wholeCall(call: WireToolCall, index: number): ToolCall | undefined {
  const name = call.function?.name;
  if (typeof name !== 'string' || name.length === 0) return undefined;
  const args = call.function?.arguments;
  return {
    id: typeof call.id === 'string' ? call.id : `call_${index}`,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
  };
}

/** The model client the configuration describes; none without MODEL_BASE_URL. */
export function configuredModelClient(
  config: Pick<Config, 'MODEL_BASE_URL' | 'MODEL_API_KEY' | 'MODEL_NAME' | 'MODEL_TIMEOUT_MS'>,
): ModelClient | undefined {
  if (!config.MODEL_BASE_URL) return undefined;
  return createModelClient({
    baseUrl: config.MODEL_BASE_URL,
    apiKey: config.MODEL_API_KEY,
    model: config.MODEL_NAME,
    timeoutMs: config.MODEL_TIMEOUT_MS,
  });
}
