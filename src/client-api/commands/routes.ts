import { type App, noContent } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { commandErrors } from './errors.ts';
import {
  AckParams,
  Command,
  CommandParams,
  DeviceStreamParams,
  SendCommandBody,
  SendCommandParams,
  StreamTicket,
} from './schemas.ts';
import { senderOf } from './service.ts';

const tag = 'commands';
const e = commandErrors;
const { ACCOUNT_NOT_FOUND } = accountErrors;
const { DEVICE_NOT_FOUND } = deviceErrors;
const { DEVICE_MISMATCH } = authenticationErrors;

/** Sending commands to a device, reading how far each got, and the device's acknowledgement and ticket. */
export function commandRoutes(app: App, { access, commands }: Pick<ClientApi, 'access' | 'commands'>): void {
  app.post(
    '/accounts/:accountNumber/devices/:mediaPlayerId/commands',
    access.route(
      {
        id: 'Commands_SendDeviceCommandAsync',
        summary:
          'Tells a device of the account to stop, pause, resume or play: 202 with the command, state sent.',
        description:
          "Stores the command and sends it at once to the device's command stream, whichever process holds it: 409 DEVICE_NOT_CONNECTED when none does. `play` needs `contentId` (and starts at `offset`, 0 by default). A command not acknowledged within COMMAND_TTL expires. Bounded per sender (COMMANDS_PER_SENDER per REQUEST_LIMIT_WINDOW) and per device (COMMANDS_PER_DEVICE unacknowledged): 429 with Retry-After.",
        tag,
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'devices:control',
        errors: [
          ACCOUNT_NOT_FOUND,
          DEVICE_NOT_FOUND,
          e.COMMAND_CONTENT_REQUIRED,
          e.DEVICE_NOT_CONNECTED,
          e.COMMANDS_LIMITED,
          e.COMMANDS_PENDING_LIMITED,
        ],
      },
      { params: SendCommandParams, body: SendCommandBody, response: { 202: Command } },
    ),
    async ({ params, body, principal }, reply) => {
      const command = await commands.send({
        ...body,
        accountNumber: params.accountNumber,
        mediaPlayerId: params.mediaPlayerId,
        sender: senderOf(principal),
      });
      return reply.code(202).send(command);
    },
  );

  app.get(
    '/accounts/:accountNumber/devices/:mediaPlayerId/commands/:commandId',
    access.route(
      {
        id: 'Commands_GetDeviceCommandAsync',
        summary: 'A command sent to the device, with its state: sent, delivered, acknowledged or expired.',
        description:
          'delivered: written to the device stream; acknowledged: the device said it obeyed; expired: not acknowledged within COMMAND_TTL. 404 COMMAND_NOT_FOUND for a command of another device or none.',
        tag,
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'devices:control',
        errors: [ACCOUNT_NOT_FOUND, DEVICE_NOT_FOUND, e.COMMAND_NOT_FOUND],
      },
      { params: CommandParams, response: { 200: Command } },
    ),
    async ({ params }) => commands.status(params.accountNumber, params.mediaPlayerId, params.commandId),
  );

  app.post(
    '/:deviceClass/:deviceId/commands/:commandId/ack',
    access.route(
      {
        id: 'Commands_AcknowledgeDeviceCommandAsync',
        summary: 'The device says it obeyed one of its commands: 204.',
        description:
          'Only the device told may acknowledge (its own token and path, else 403 DEVICE_MISMATCH); again is 204 too; 409 COMMAND_EXPIRED past COMMAND_TTL; 404 COMMAND_NOT_FOUND for a command not its own.',
        tag,
        security: 'person',
        errors: [DEVICE_MISMATCH, e.COMMAND_NOT_FOUND, e.COMMAND_EXPIRED],
      },
      { params: AckParams, response: { 204: { type: 'null', description: 'Acknowledged.' } } },
    ),
    async ({ params, principal }, reply) => noContent(reply, commands.acknowledge(principal, params)),
  );

  app.post(
    '/:deviceClass/:deviceId/commands/ticket',
    access.route(
      {
        id: 'Commands_GetCommandStreamTicketAsync',
        summary: "A ticket for the device's command stream URL, for a browser's EventSource (no headers).",
        description:
          'The streamUrl opens GET /{deviceClass}/{deviceId}/commands with `t`, good for `expiresIn` seconds (60), for this device and while its session is open. A resume then passes `lastEventId` in the query.',
        tag,
        security: 'person',
        errors: [DEVICE_MISMATCH],
      },
      { params: DeviceStreamParams, response: { 200: StreamTicket } },
    ),
    async ({ params, principal }) => commands.ticket(principal, params),
  );
}
