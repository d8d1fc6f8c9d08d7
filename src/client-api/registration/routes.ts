import type { App } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { registrationErrors } from './errors.ts';
import { registrationAcceptedSchema, registrationParams, registrationRequestSchema } from './schemas.ts';

export function registrationRoutes(
  app: App,
  { access, registration }: Pick<ClientApi, 'access' | 'registration'>,
): void {
  app.post(
    '/:deviceClass/registration/request',
    access.route(
      {
        id: 'AccountManagement_RequestSendEmailAsync',
        description:
          "Queues a registration e-mail to the address in the body, in the durable outbox that a worker sends from, retrying failed attempts later, and answers at once with the request's reference (`status: queued`). The sender's name and the device class are quoted only when they are plain words. Limited per client address and per e-mail address within their windows: 429 with Retry-After.",
        code: 'CORREO',
        summary:
          'Queues a registration e-mail to the address (durable outbox). Rate-limited per client address and per e-mail address (429 with Retry-After).',
        tag: 'registration',
        security: 'none',
        errors: [registrationErrors.REGISTRATION_RATE_LIMITED],
      },
      {
        params: registrationParams,
        body: registrationRequestSchema,
        response: { 200: registrationAcceptedSchema },
      },
    ),
    async (request) =>
      registration.request({
        deviceClass: request.params.deviceClass,
        body: request.body,
        clientAddress: request.ip,
      }),
  );
}
