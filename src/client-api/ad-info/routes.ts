import { httpErrors, subsystemErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { adInfoParams, adInfoQuery, adInfoSchema } from './schemas.ts';

export function adInfoRoutes(app: App, { access, adInfo: ads }: Pick<ClientApi, 'access' | 'adInfo'>): void {
  app.get(
    '/:deviceClass/:contents/:contentId/ad-info',
    access.route(
      {
        id: 'Ad_GetContentAdInfoAsync',
        description:
          'Answers the ad breaks of the content item and the VAST tag to fetch them with, from the ad decision service (AD_DECISION_URL) or the local ad table. Contents that carry no ads (Channels, Commercials) answer 204; a failing ad decision service is 502 SUBSYSTEM_ERROR.',
        code: 'AD_INFO',
        summary:
          'Ad breaks and VAST tag of a content item; 204 for contents that carry no ads (Channels, Commercials).',
        tag: 'advertising',
        security: 'deviceOrOperator',
        // The contract lists the 500 of this operation among its answers.
        errors: [httpErrors.INTERNAL_ERROR, subsystemErrors.SUBSYSTEM_ERROR],
      },
      {
        params: adInfoParams,
        querystring: adInfoQuery,
        response: {
          200: adInfoSchema,
          204: { type: 'null', description: 'No ad info for this contents type (Channels, Commercials).' },
        },
      },
    ),
    async (request, reply) => {
      const info = await ads.adInfo({ ...request.params, query: request.query });
      if (!info) return reply.code(204).send(null);
      return info;
    },
  );
}
