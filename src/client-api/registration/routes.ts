import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApiDeps } from '../deps.ts';
import { attachMailWorker } from '../mail/lifecycle.ts';
import { OUTBOX_KEY_PURPOSE } from '../mail/outbox.ts';
import { operation } from '../openapi.ts';
import { registrationAcceptedSchema, registrationParams, registrationRequestSchema } from './schemas.ts';
import { createRegistrationService } from './service.ts';

export function registerRegistrationRoutes(app: App, deps: ClientApiDeps): void {
  const { core } = deps;
  const worker = attachMailWorker(app, core);
  const registration = createRegistrationService({
    db: core.database.db.withTables(),
    outboxKey: core.key(OUTBOX_KEY_PURPOSE),
    hashKey: core.key('registration-rate-limit'),
    limitPerHour: core.config.REGISTRATION_RATE_LIMIT,
    onQueued: () => worker.kick(),
  });

  app.post(
    '/:deviceClass/registration/request',
    {
      schema: {
        ...operation({
          id: 'AccountManagement_RequestSendEmailAsync',
          errors: { 429: ['REGISTRATION_RATE_LIMITED'] },
          code: 'CORREO',
          summary:
            'Queues a registration e-mail to the address (durable outbox). Rate-limited per client address and per e-mail address (429 with Retry-After).',
          tag: 'registration',
          security: 'none',
        }),
        params: registrationParams,
        body: registrationRequestSchema,
        response: { 200: registrationAcceptedSchema, ...errorResponses(400, 413, 415, 429) },
      },
    },
    async (request) =>
      registration.request({
        deviceClass: request.params.deviceClass,
        body: request.body,
        clientAddress: request.ip,
      }),
  );
}
