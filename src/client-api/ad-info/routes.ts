import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { operation } from '../openapi.ts';
import { createAdBreakRepository } from './repository.ts';
import { adInfoParams, adInfoQuery, adInfoSchema } from './schemas.ts';
import { createAdInfoService } from './service.ts';

export function registerAdInfoRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, core } = deps;
  const ads = createAdInfoService(createAdBreakRepository(core.database), core.config);

  app.get(
    '/:deviceClass/:contents/:contentId/ad-info',
    {
      onRequest: [guards.authenticate],
      schema: {
        ...operation({
          id: 'Ad_GetContentAdInfoAsync',
          errors: { 500: ['INTERNAL_ERROR'], 502: ['SUBSYSTEM_ERROR'] },
          code: 'AD_INFO',
          summary:
            'Ad breaks and VAST tag of a content item; 204 for contents that carry no ads (Channels, Commercials).',
          tag: 'advertising',
          security: 'deviceOrOperator',
        }),
        params: adInfoParams,
        querystring: adInfoQuery,
        response: {
          200: adInfoSchema,
          204: { type: 'null', description: 'No ad info for this contents type (Channels, Commercials).' },
          ...errorResponses(400, 401, 403, 500, 502),
        },
      },
    },
    async (request, reply) => {
      const info = await ads.adInfo({ ...request.params, query: request.query });
      if (!info) return reply.code(204).send(null);
      return info;
    },
  );
}
