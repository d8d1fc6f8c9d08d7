import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { accountErrors } from '../errors.ts';
import { operation } from '../openapi.ts';
import { createContactRepository } from './repository.ts';
import { campaignParams, campaignQuery, contactIdSchema } from './schemas.ts';
import { createCampaignService } from './service.ts';

export function registerCampaignRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, repositories, core } = deps;
  const campaigns = createCampaignService(createContactRepository(core.database), core.config);

  app.post(
    '/:deviceClass/accounts/:accountNumber/campaigns/:campaign',
    {
      onRequest: [guards.authenticate],
      preHandler: [guards.requireAccount('accountNumber')],
      schema: {
        ...operation({
          id: 'AccountManagement_AddContactAsync',
          errors: { 404: ['ACCOUNT_NOT_FOUND', 'DEVICE_NOT_FOUND'], 502: ['SUBSYSTEM_ERROR'] },
          code: 'ADD_CONTACT',
          summary:
            'Registers an advertising contact of the account for a campaign; answers its id. Forwarded to CAMPAIGNS_URL when set (502 when that fails).',
          tag: 'campaigns',
          security: 'deviceOrOperator',
        }),
        params: campaignParams,
        querystring: campaignQuery,
        response: { 201: contactIdSchema, ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request, reply) => {
      const { deviceClass, accountNumber, campaign } = request.params;
      const mediaPlayerId = request.query.mediaPlayerId ?? null;
      if (!(await repositories.accounts.find(accountNumber))) throw accountErrors.ACCOUNT_NOT_FOUND();
      if (mediaPlayerId !== null && !(await repositories.devices.find(accountNumber, mediaPlayerId))) {
        throw accountErrors.DEVICE_NOT_FOUND();
      }
      const id = await campaigns.addContact({ deviceClass, accountNumber, campaign, mediaPlayerId });
      // A bare string: the media types plugin writes it as a JSON string, <string> or { Value }.
      return reply.code(201).send(id);
    },
  );
}
