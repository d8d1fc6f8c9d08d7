import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ApiKeyStore, KeyClass } from '../core/api-keys/api-keys.ts';
import type { AssistantTokenVerifier } from '../core/assistant-tokens.ts';
import { authErrors, type ErrorSpec, httpErrors, subsystemErrors } from '../core/errors.ts';
import { API_KEY_HEADER, authenticateApiKey } from '../core/http/api-key-guard.ts';

/** Who called an agent route: an operator or runtime key, or the assistant with a signed JWT. */
export type AgentCaller =
  | { kind: 'api-key'; keyId: string }
  | {
      kind: 'assistant';
      subject?: string;
      /** The assistant user speaking, when the channel bound the conversation to a person (signed claim). */
      speaker?: string;
      /** The channel and conversation the assistant signed the call for (claims `channel`, `conversationId`). */
      channel?: string;
      conversationId?: string;
    };

declare module 'fastify' {
  interface FastifyRequest {
    agentCaller?: AgentCaller;
  }
}

/** The audience the assistant signs tokens for when it calls the agents server. */
export const AGENTS_AUDIENCE = 'sintonia-agents';
const AGENT_KEY_CLASSES: readonly KeyClass[] = ['runtime', 'backoffice'];
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

/** Refusals of a missing or bad bearer token; their challenge follows the operation's security (core/http/challenges.ts). */
const refusals = {
  CREDENTIALS_MISSING: authErrors.CREDENTIALS_MISSING,
  TOKEN_INVALID: authErrors.TOKEN_INVALID,
};

/** What the caller check may answer, listed on every agents route. */
export const agentCallerErrors: readonly ErrorSpec[] = [
  refusals.CREDENTIALS_MISSING,
  authErrors.API_KEY_INVALID,
  httpErrors.RATE_LIMITED,
  refusals.TOKEN_INVALID,
  authErrors.ACCESS_DENIED,
  subsystemErrors.SUBSYSTEM_ERROR,
];

/**
 * The onRequest hook of every /agents route: an X-API-Key of class runtime or backoffice, or a Bearer
 * JWT signed by the assistant (iss, aud `sintonia-agents`, exp). None is 401, a bad key or token is
 * 401, a key of another class is 403, a key set that cannot be fetched is 502 (`agentCallerErrors`).
 * `assistantTokens` verifies for the audience AGENTS_AUDIENCE.
 */
export function requireAgentCaller(
  apiKeys: ApiKeyStore,
  assistantTokens: AssistantTokenVerifier,
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    if (request.headers[API_KEY_HEADER] !== undefined) {
      const record = await authenticateApiKey(apiKeys, request);
      if (!record || !AGENT_KEY_CLASSES.includes(record.keyClass)) {
        throw authErrors.ACCESS_DENIED(
          `The agents server accepts keys of class ${AGENT_KEY_CLASSES.join(' or ')}.`,
        );
      }
      request.agentCaller = { kind: 'api-key', keyId: record.id };
      return;
    }
    const authorization = request.headers.authorization;
    if (authorization === undefined) {
      throw refusals.CREDENTIALS_MISSING(
        `An API key in the ${API_KEY_HEADER} header or a Bearer token signed by the assistant is required.`,
      );
    }
    const token = BEARER.exec(authorization)?.[1];
    if (!token) throw refusals.TOKEN_INVALID('The Authorization header must be `Bearer <JWT>`.');
    const outcome = await assistantTokens.verify(token);
    if (outcome.ok) {
      const { assistant_id: speaker, channel, conversationId } = outcome.payload;
      request.agentCaller = {
        kind: 'assistant',
        subject: outcome.payload.sub,
        ...(typeof speaker === 'string' && speaker.length > 0 ? { speaker } : {}),
        ...(typeof channel === 'string' && channel.length > 0 ? { channel } : {}),
        ...(typeof conversationId === 'string' && conversationId.length > 0 ? { conversationId } : {}),
      };
      return;
    }
    if (outcome.reason === 'keys-unavailable') {
      throw subsystemErrors.SUBSYSTEM_ERROR("The assistant's public keys could not be fetched.", {
        cause: outcome.cause,
      });
    }
    request.log.info({ reason: outcome.detail }, 'assistant token refused');
    throw refusals.TOKEN_INVALID();
  };
}
