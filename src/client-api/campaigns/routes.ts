import { subsystemErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { campaignParams, campaignQuery, contactIdSchema } from './schemas.ts';

export function campaignRoutes(
  app: App,
  { access, campaigns }: Pick<ClientApi, 'access' | 'campaigns'>,
): void {
  app.post(
    '/:deviceClass/accounts/:accountNumber/campaigns/:campaign',
    access.route(
      {
        id: 'AccountManagement_AddContactAsync',
        description:
          "Stores the account's advertising contact for the campaign and answers its id (201). When CAMPAIGNS_URL is set the contact is forwarded to that subsystem instead, and a failure there is 502 SUBSYSTEM_ERROR.",
        code: 'ADD_CONTACT',
        summary:
          'Registers an advertising contact of the account for a campaign; answers its id. Forwarded to CAMPAIGNS_URL when set (502 when that fails).',
        tag: 'campaigns',
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        errors: [
          accountErrors.ACCOUNT_NOT_FOUND,
          deviceErrors.DEVICE_NOT_FOUND,
          subsystemErrors.SUBSYSTEM_ERROR,
        ],
      },
      {
        params: campaignParams,
        querystring: campaignQuery,
        response: { 201: contactIdSchema },
      },
    ),
    async (request, reply) => {
      const { deviceClass, accountNumber, campaign } = request.params;
      const mediaPlayerId = request.query.mediaPlayerId ?? null;
      const id = await campaigns.addContact({ deviceClass, accountNumber, campaign, mediaPlayerId });
      // A bare string: the media types plugin writes it as a JSON string, <string> or { Value }.
      return reply.code(201).send(id);
    },
  );
}
