import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Config } from '../../core/config.ts';
import type { App } from '../../core/http/service-app.ts';
import { tvPageErrors } from './errors.ts';
import { TV_ASSETS_PATH, TV_CSP, TV_PATH, tvAssets, tvPageHtml } from './page.ts';

const YEAR = 365 * 86400;
const byName = new Map(
  [
    { ...tvAssets.script, type: 'text/javascript; charset=utf-8' },
    { ...tvAssets.style, type: 'text/css; charset=utf-8' },
  ].map((asset) => [asset.name, asset]),
);

function sendAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: { body: string; etag: string; type: string },
) {
  reply.headers({
    'content-type': asset.type,
    'cache-control': `public, max-age=${YEAR}, immutable`,
    etag: asset.etag,
    'x-content-type-options': 'nosniff',
  });
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.send(asset.body);
}

/**
 * The TV page (`GET …/tv`): a TV of the household in a browser, for trying the household's operations with
 * a phone and the assistant. A page, not an operation: it is not in the API document, and it reaches
 * nothing but the public operations, as any TV would.
 */
export function tvPageRoutes(
  app: App,
  settings: Pick<Config, 'CLIENT_API_BASE_PATH' | 'DEVICE_GRANT_CLIENT_IDS'>,
): void {
  const clientId = settings.DEVICE_GRANT_CLIENT_IDS.split(',')[0] ?? '';
  app.get(TV_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': TV_CSP,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      })
      .send(tvPageHtml(settings.CLIENT_API_BASE_PATH, clientId)),
  );

  app.get(
    `${TV_ASSETS_PATH}/:file`,
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      const asset = byName.get(request.params.file);
      if (!asset) throw tvPageErrors.TV_ASSET_NOT_FOUND();
      return sendAsset(request, reply, asset);
    },
  );
}
