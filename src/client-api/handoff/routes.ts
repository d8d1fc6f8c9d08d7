import type { App } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import { commandErrors } from '../commands/errors.ts';
import { senderOf } from '../commands/service.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { playbackErrors } from '../playback/errors.ts';
import { handoffErrors } from './errors.ts';
import { Handoff, HandoffBody, HandoffParams } from './schemas.ts';

export function handoffRoutes(app: App, { access, handoff }: Pick<ClientApi, 'access' | 'handoff'>): void {
  app.post(
    '/accounts/:accountNumber/playback/handoff',
    access.route(
      {
        id: 'Playback_HandoffAsync',
        summary:
          'Hands what one device plays over to another: the stream moves, the target is told to play, the source to stop.',
        description:
          "Continue on another device: the source's stream becomes the target's in one transaction (within the account's stream limit: the source's place is the target's, no other device can take it in between), the target is told to `play` the same content from the source's last reported position, and the source to `stop` (its stream is over even when it holds no command stream; `from.command` is then absent). 409 NOTHING_PLAYING when the source plays nothing; 409 DEVICE_NOT_CONNECTED when the target holds no command stream, and nothing changes. The two commands count against the caller's command limit.",
        tag: 'playback',
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'devices:control',
        errors: [
          handoffErrors.HANDOFF_SAME_DEVICE,
          accountErrors.ACCOUNT_NOT_FOUND,
          deviceErrors.DEVICE_NOT_FOUND,
          handoffErrors.NOTHING_PLAYING,
          commandErrors.DEVICE_NOT_CONNECTED,
          playbackErrors.STREAM_LIMIT_REACHED,
          commandErrors.COMMANDS_LIMITED,
          commandErrors.COMMANDS_PENDING_LIMITED,
        ],
      },
      { params: HandoffParams, body: HandoffBody, response: { 202: Handoff } },
    ),
    async ({ params, body, principal }, reply) => {
      const result = await handoff({
        accountNumber: params.accountNumber,
        from: body.from,
        to: body.to,
        sender: senderOf(principal),
      });
      return reply.code(202).send(result);
    },
  );
}
