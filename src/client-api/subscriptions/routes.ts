import { subsystemErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { ClientApi } from '../composition.ts';
import { userErrors } from '../users/errors.ts';
import { subscriptionErrors } from './errors.ts';
import {
  homeZoneParams,
  splitOffer,
  subscriptionSchema,
  upgradeDocumentParams,
  upgradeParams,
} from './schemas.ts';

const tag = 'subscriptions';

export function subscriptionRoutes(
  app: App,
  { access, subscriptions }: Pick<ClientApi, 'access' | 'subscriptions'>,
): void {
  // The contract's path is …/subscriptions/{codPersona};{codOferta}/dth/enabled: one segment, split here.
  app.post(
    '/:deviceClass/users/:platformUserId/subscriptions/:offer/dth/enabled',
    {
      config: {
        documentedAs: {
          url: `${app.prefix}/:deviceClass/users/:platformUserId/subscriptions/:codPersona;:codOferta/dth/enabled`,
          params: upgradeDocumentParams,
        },
      },
      ...access.route(
        {
          id: 'AccountManagement_UpgradeUserAsync',
          description:
            'Enables the dth offer `{codPersona};{codOferta}` for the platform user and answers the resulting subscription. With SUBSCRIPTIONS_URL set the request goes to that back end, and a failure there is 502 SUBSYSTEM_ERROR; otherwise the local store answers.',
          code: 'UPGRADE_USER',
          summary:
            'Enables the dth offer {codPersona};{codOferta} for the user and answers the subscription. Sent to SUBSCRIPTIONS_URL when set (502 when that fails).',
          tag,
          security: 'deviceOrOperator',
          errors: [
            authenticationErrors.USER_MISMATCH,
            userErrors.USER_NOT_FOUND,
            subsystemErrors.SUBSYSTEM_ERROR,
          ],
        },
        {
          params: upgradeParams,
          response: { 200: subscriptionSchema },
        },
      ),
    },
    async ({ params, principal }) =>
      subscriptions.enableDth(principal, {
        platformUserId: params.platformUserId,
        ...splitOffer(params.offer),
      }),
  );

  app.head(
    '/accounts/:accountNumber/subscriptions/homezone',
    {
      // HEAD routes are left out of the document unless asked for.
      config: { swagger: { exposeHeadRoute: true } },
      ...access.route(
        {
          id: 'AccountManagement_CheckHomeZoneSubscriptionAsync',
          description:
            'Answers 204 when the account holds a home-zone subscription and 404 when it does not; a HEAD, so neither answer has a body.',
          code: 'CHECK_HOMEZONE_SUBSCR',
          summary: 'Whether the account holds a home-zone subscription: 204 yes, 404 no (no body: HEAD).',
          tag,
          security: 'deviceOrOperator',
          owner: 'accountNumber',
          errors: [subscriptionErrors.HOMEZONE_NOT_SUBSCRIBED, subsystemErrors.SUBSYSTEM_ERROR],
        },
        {
          params: homeZoneParams,
          response: { 204: { type: 'null', description: 'The account is subscribed to the home zone.' } },
        },
      ),
    },
    async (request, reply) => {
      await subscriptions.requireHomeZone(request.params.accountNumber);
      return reply.code(204).send(null);
    },
  );
}
