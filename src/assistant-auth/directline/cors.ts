import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFoundHandler } from '../../core/http/error-handler.ts';

/**
 * Web Chat runs in browsers on the site's own origin: the Direct Line routes answer any origin, as the
 * Direct Line service does. Safe because they authenticate by bearer only (no cookies, no ambient
 * credentials), so a page gains nothing it did not already hold.
 */
const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-request-id, retry-after',
};

export function allowAnyOrigin(reply: FastifyReply): void {
  reply.headers(corsHeaders);
}

/**
 * The Direct Line scope's not-found handler: it answers the browsers' preflight (OPTIONS) for every
 * path, and otherwise 404 or 405 as everywhere. A catch-all OPTIONS route would make every unknown path
 * "known" (405 instead of 404).
 */
export function preflightOrNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (request.method !== 'OPTIONS') return notFoundHandler(request, reply);
  return reply
    .code(204)
    .headers({
      ...corsHeaders,
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      // What DirectLineJS and Web Chat send: x-ms-bot-agent on every call, the rest on some.
      'access-control-allow-headers':
        'authorization, content-type, x-ms-bot-agent, x-ms-conversation-id, x-requested-with',
      'access-control-max-age': '600',
    })
    .send();
}
