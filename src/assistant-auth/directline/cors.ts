import type { FastifyReply } from 'fastify';
import type { App } from '../../core/http/service-app.ts';

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

/** Answers the browsers' preflight for every Direct Line path. */
export function registerPreflight(app: App): void {
  app.options('/v3/directline/*', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .code(204)
      .headers({
        ...corsHeaders,
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, x-ms-bot-agent, x-requested-with',
        'access-control-max-age': '600',
      })
      .send(),
  );
}
