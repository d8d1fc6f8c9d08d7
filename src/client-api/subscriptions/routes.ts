import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { contentErrors } from '../content-errors.ts';
import type { ClientApiDeps } from '../deps.ts';
import { operation } from '../openapi.ts';
import { createSubscriptionRepository } from './repository.ts';
import { homeZoneParams, subscriptionSchema, upgradeDocumentParams, upgradeParams } from './schemas.ts';
import { createSubscriptionService } from './service.ts';

const tag = 'subscriptions';

export function registerSubscriptionRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, repositories, core } = deps;
  const subscriptions = createSubscriptionService(
    createSubscriptionRepository(core.database),
    repositories.users,
    core.config,
  );

  // SPEC's path is …/subscriptions/{codPersona};{codOferta}/dth/enabled: one segment, split here.
  app.post(
    '/:deviceClass/users/:platformUserId/subscriptions/:offer/dth/enabled',
    {
      config: {
        documentedAs: {
          url: `${app.prefix}/:deviceClass/users/:platformUserId/subscriptions/:codPersona;:codOferta/dth/enabled`,
          params: upgradeDocumentParams,
        },
      },
      onRequest: [guards.authenticate],
      schema: {
        ...operation({
          id: 'AccountManagement_UpgradeUserAsync',
          errors: { 403: ['USER_MISMATCH'], 404: ['USER_NOT_FOUND'], 502: ['SUBSYSTEM_ERROR'] },
          code: 'UPGRADE_USER',
          summary:
            'Enables the dth offer {codPersona};{codOferta} for the user and answers the subscription. Sent to SUBSCRIPTIONS_URL when set (502 when that fails).',
          tag,
          security: 'deviceOrOperator',
        }),
        params: upgradeParams,
        response: { 200: subscriptionSchema, ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request) => {
      const { platformUserId, offer } = request.params;
      const principal = request.principal;
      if (principal?.kind === 'device' && principal.platformUserId !== platformUserId) {
        throw contentErrors.USER_MISMATCH('A device may upgrade its own user only.');
      }
      const split = offer.indexOf(';');
      return subscriptions.enableDth({
        platformUserId,
        codPersona: offer.slice(0, split),
        codOferta: offer.slice(split + 1),
      });
    },
  );

  app.head(
    '/accounts/:accountNumber/subscriptions/homezone',
    {
      // HEAD routes are left out of the document unless asked for.
      config: { swagger: { exposeHeadRoute: true } },
      onRequest: [guards.authenticate],
      preHandler: [guards.requireAccount('accountNumber')],
      schema: {
        ...operation({
          id: 'AccountManagement_CheckHomeZoneSubscriptionAsync',
          errors: { 404: ['HOMEZONE_NOT_SUBSCRIBED'], 502: ['SUBSYSTEM_ERROR'] },
          code: 'CHECK_HOMEZONE_SUBSCR',
          summary: 'Whether the account holds a home-zone subscription: 204 yes, 404 no (no body: HEAD).',
          tag,
          security: 'deviceOrOperator',
        }),
        params: homeZoneParams,
        response: {
          204: { type: 'null', description: 'The account is subscribed to the home zone.' },
          ...errorResponses(400, 401, 403, 404, 502),
        },
      },
    },
    async (request, reply) => {
      if (!(await subscriptions.hasHomeZone(request.params.accountNumber))) {
        throw contentErrors.HOMEZONE_NOT_SUBSCRIBED();
      }
      return reply.code(204).send(null);
    },
  );
}
