import { Readable } from 'node:stream';
import type { onRequestAsyncHookHandler } from 'fastify';
import Value from 'typebox/value';
import { authErrors } from '../core/errors.ts';
import type { App } from '../core/http/service-app.ts';
import {
  type Agent,
  type AgentAnswer,
  type AgentRegistry,
  type AgentTurn,
  type AnswerExtras,
  agentChunks,
  textFormatOf,
} from './agent.ts';
import type { AgentCaller } from './auth.ts';
import { agentErrors, responseErrors } from './errors.ts';
import { ResponseValidationError } from './exceptions.ts';
import { agentOperation } from './openapi.ts';
import {
  type AgentView,
  agentListSchema,
  agentNameParams,
  agentSchema,
  type InvokeRequest,
  type InvokeResponse,
  invokeRequestSchema,
  invokeResponseSchema,
  streamEventsDescription,
  type TextFormat,
} from './schemas.ts';
import { abandonIfClientGone, abortOnDisconnect, streamEvents } from './sse.ts';

/** What the routes receive from the composition root (composition.ts). */
export interface AgentsServer {
  registry: AgentRegistry;
  /** The caller check: an API key of an agent class or the assistant's JWT. */
  requireCaller: onRequestAsyncHookHandler;
}

/** A turn may raise any of the contract's agent exceptions, and its answer may fail its schema. */
const turnErrors = [...Object.values(agentErrors), responseErrors.RESPONSE_VALIDATION_ERROR];

function view(agent: Agent): AgentView {
  return {
    name: agent.name,
    description: agent.description,
    configured: agent.configured(),
    streaming: agent.stream !== undefined,
  };
}

/** The invoke body, checked against its schema before it is sent (Fastify only serialises). */
function answerBody(
  agent: Agent,
  request: InvokeRequest,
  answer: AgentAnswer,
  textFormat: TextFormat,
): InvokeResponse {
  const { output, model, suggestedActions, attachments } = answer;
  const body: InvokeResponse = { agent: agent.name, output, textFormat };
  if (request.conversationId !== undefined) body.conversationId = request.conversationId;
  if (model !== undefined) body.model = model;
  if (suggestedActions !== undefined) body.suggestedActions = suggestedActions;
  if (attachments !== undefined) body.attachments = attachments;
  if (!Value.Check(invokeResponseSchema, body)) {
    throw new ResponseValidationError(Value.Errors(invokeResponseSchema, body));
  }
  return body;
}

/**
 * Who called, as limits and memory tell callers apart. The assistant's token for one conversation is
 * good for that conversation only: its memory is reachable through its channel and nothing else.
 */
function callerOf(caller: AgentCaller | undefined, conversationId: string | undefined): string | undefined {
  if (caller?.kind === 'api-key') return `key:${caller.keyId}`;
  if (caller?.kind !== 'assistant') return undefined;
  if (caller.conversationId === undefined) return `assistant:${caller.subject ?? ''}`;
  if (caller.conversationId !== conversationId) {
    throw authErrors.ACCESS_DENIED('The assistant signed this call for another conversation.');
  }
  return `channel:${caller.channel ?? 'assistant'}`;
}

function turnOf(
  request: { id: string; body: InvokeRequest; agentCaller?: AgentCaller },
  signal: AbortSignal,
): AgentTurn {
  const { input, conversationId, locale, attachments } = request.body;
  const caller = request.agentCaller;
  const speaker = caller?.kind === 'assistant' ? caller.speaker : undefined;
  const who = callerOf(caller, conversationId);
  return {
    input,
    conversationId,
    signal,
    requestId: request.id,
    ...(who ? { caller: who } : {}),
    ...(locale ? { locale } : {}),
    ...(attachments ? { attachments } : {}),
    ...(speaker ? { speaker: { assistantId: speaker } } : {}),
  };
}

/** The routes of the agents server, top to bottom. */
export function agentRoutes(app: App, { registry, requireCaller: onRequest }: AgentsServer): void {
  app.get(
    '/agents',
    {
      onRequest,
      schema: agentOperation(
        { id: 'listAgents', summary: 'The registered agents.', errors: [] },
        { response: { 200: agentListSchema } },
      ),
    },
    async () => ({ agents: registry.list().map(view) }),
  );

  app.get(
    '/agents/:name',
    {
      onRequest,
      schema: agentOperation(
        { id: 'getAgent', summary: 'One agent.', errors: [agentErrors.AGENT_NOT_FOUND] },
        { params: agentNameParams, response: { 200: agentSchema } },
      ),
    },
    async (request) => view(registry.get(request.params.name)),
  );

  app.post(
    '/agents/:name/invoke',
    {
      onRequest,
      schema: agentOperation(
        {
          id: 'invokeAgent',
          summary: 'One turn: the agent’s whole answer as JSON.',
          description:
            'The client closing the connection cancels the agent’s work. Upstream rate limiting, and the server’s own bounds on turns per person or conversation, overall and at once (docs/limits.md), are 429 AGENT_RATE_LIMIT_ERROR with Retry-After; upstream failures are 502.',
          errors: turnErrors,
        },
        { params: agentNameParams, body: invokeRequestSchema, response: { 200: invokeResponseSchema } },
      ),
    },
    async (request, reply) => {
      const agent = registry.get(request.params.name);
      const signal = abortOnDisconnect(reply);
      const turn = turnOf(request, signal);
      let answer: AgentAnswer;
      try {
        answer = await agent.invoke(turn);
      } catch (error) {
        return abandonIfClientGone(request, reply, signal, error);
      }
      return answerBody(agent, request.body, answer, textFormatOf(agent, turn));
    },
  );

  app.post(
    '/agents/:name/stream',
    {
      onRequest,
      schema: agentOperation(
        {
          id: 'streamAgent',
          summary: 'One turn, streamed as Server-Sent Events.',
          description: streamEventsDescription,
          errors: turnErrors,
        },
        {
          params: agentNameParams,
          body: invokeRequestSchema,
          response: {
            200: {
              description: streamEventsDescription,
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
          },
        },
      ),
    },
    async (request, reply) => {
      const agent = registry.get(request.params.name);
      const signal = abortOnDisconnect(reply);
      const turn = turnOf(request, signal);
      const textFormat = textFormatOf(agent, turn);
      const chunks = agentChunks(agent, turn);
      // The first chunk is awaited before the headers go out: an early failure is a plain HTTP error.
      let first: IteratorResult<string, AnswerExtras | undefined>;
      try {
        first = await chunks.next();
      } catch (error) {
        return abandonIfClientGone(request, reply, signal, error);
      }
      const events = streamEvents(request, signal, { first, rest: chunks, textFormat }, (output, extras) =>
        answerBody(agent, request.body, { ...extras, output }, textFormat),
      );
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache, no-transform')
          .header('x-accel-buffering', 'no')
          // The 200 schema documents the event stream as text; the payload is a stream of it.
          .send(Readable.from(events) as unknown as string)
      );
    },
  );
}
