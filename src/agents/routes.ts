import { Readable } from 'node:stream';
import Value from 'typebox/value';
import type { Core } from '../core/core.ts';
import { errorResponses } from '../core/errors.ts';
import type { App } from '../core/http/service-app.ts';
import { type Agent, type AgentAnswer, type AgentRegistry, type AgentTurn, agentChunks } from './agent.ts';
import { requireAgentCaller } from './auth.ts';
import { ResponseValidationError } from './error-managers.ts';
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
} from './schemas.ts';
import { abandonIfClientGone, abortOnDisconnect, streamEvents } from './sse.ts';

const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { assistantJwt: [] }];
const access =
  'Access: an `X-API-Key` of class runtime or backoffice, or `Authorization: Bearer <JWT>` signed by the assistant (aud `sintonia-agents`).';

function view(agent: Agent): AgentView {
  return {
    name: agent.name,
    description: agent.description,
    configured: agent.configured(),
    streaming: agent.stream !== undefined,
  };
}

/** The invoke body, checked against its schema before it is sent (Fastify only serialises). */
function answerBody(agent: Agent, request: InvokeRequest, output: string, model?: string): InvokeResponse {
  const body: InvokeResponse = { agent: agent.name, output };
  if (request.conversationId !== undefined) body.conversationId = request.conversationId;
  if (model !== undefined) body.model = model;
  if (!Value.Check(invokeResponseSchema, body)) {
    throw new ResponseValidationError(Value.Errors(invokeResponseSchema, body));
  }
  return body;
}

function turnOf(request: InvokeRequest, signal: AbortSignal): AgentTurn {
  return { input: request.input, conversationId: request.conversationId, signal };
}

/** The routes of the agents server, top to bottom. */
export async function registerAgentRoutes(app: App, core: Core, registry: AgentRegistry): Promise<void> {
  const onRequest = requireAgentCaller(core);

  app.get(
    '/agents',
    {
      onRequest,
      schema: {
        operationId: 'listAgents',
        summary: 'The registered agents.',
        description: access,
        tags: ['agents'],
        security,
        response: { 200: agentListSchema, ...errorResponses(401, 403, 500, 502) },
      },
    },
    async () => ({ agents: registry.list().map(view) }),
  );

  app.get(
    '/agents/:name',
    {
      onRequest,
      schema: {
        operationId: 'getAgent',
        summary: 'One agent.',
        description: access,
        tags: ['agents'],
        security,
        params: agentNameParams,
        response: { 200: agentSchema, ...errorResponses(400, 401, 403, 404, 500, 502) },
      },
    },
    async (request) => view(registry.get(request.params.name)),
  );

  const callErrors = errorResponses(400, 401, 403, 404, 413, 415, 429, 500, 502);

  app.post(
    '/agents/:name/invoke',
    {
      onRequest,
      schema: {
        operationId: 'invokeAgent',
        summary: 'One turn: the agent’s whole answer as JSON.',
        description: `${access} The client closing the connection cancels the agent’s work. Upstream rate limiting is 429 with Retry-After; upstream failures are 502.`,
        tags: ['agents'],
        security,
        params: agentNameParams,
        body: invokeRequestSchema,
        response: { 200: invokeResponseSchema, ...callErrors },
      },
    },
    async (request, reply) => {
      const agent = registry.get(request.params.name);
      const signal = abortOnDisconnect(reply);
      let answer: AgentAnswer;
      try {
        answer = await agent.invoke(turnOf(request.body, signal));
      } catch (error) {
        return abandonIfClientGone(request, reply, signal, error);
      }
      return answerBody(agent, request.body, answer.output, answer.model);
    },
  );

  app.post(
    '/agents/:name/stream',
    {
      onRequest,
      schema: {
        operationId: 'streamAgent',
        summary: 'One turn, streamed as Server-Sent Events.',
        description: `${access} ${streamEventsDescription}`,
        tags: ['agents'],
        security,
        params: agentNameParams,
        body: invokeRequestSchema,
        response: {
          200: {
            description: streamEventsDescription,
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...callErrors,
        },
      },
    },
    async (request, reply) => {
      const agent = registry.get(request.params.name);
      const signal = abortOnDisconnect(reply);
      const chunks = agentChunks(agent, turnOf(request.body, signal));
      // The first chunk is awaited before the headers go out: an early failure is a plain HTTP error.
      let first: IteratorResult<string>;
      try {
        first = await chunks.next();
      } catch (error) {
        return abandonIfClientGone(request, reply, signal, error);
      }
      const events = streamEvents(request, signal, first, chunks, (output) =>
        answerBody(agent, request.body, output),
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
