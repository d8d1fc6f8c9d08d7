import { ProblemError } from '../../core/errors.ts';
import { commandErrors } from '../commands/errors.ts';
import type { CommandService } from '../commands/service.ts';
import type { DeviceService } from '../devices/service.ts';
import type { PlaybackService } from '../playback/service.ts';
import { handoffErrors } from './errors.ts';
import type { HandoffValue } from './schemas.ts';

export interface HandoffRequestOf {
  accountNumber: string;
  from: string;
  to: string;
  /** Whose command limit the two commands count against (`senderOf`). */
  sender: string;
}

/**
 * "Continue on the bedroom TV": the source's stream becomes the target's in one transaction (so the account's
 * limit never sees both, and no other device takes the freed place in between), the target is told to play
 * the same content from the source's last reported position, and the source is told to stop. The target
 * must hold its command stream, checked before anything changes; should telling it fail all the same, the
 * stream goes back to the source. The source is told to stop when it holds a stream; its own stream is over
 * either way.
 */
export function createHandoff({
  playback,
  commands,
  devices,
}: {
  playback: Pick<PlaybackService, 'streamsOf' | 'start'>;
  commands: Pick<CommandService, 'send' | 'connected'>;
  devices: Pick<DeviceService, 'requireDevice'>;
}) {
  return async function handoff({
    accountNumber,
    from,
    to,
    sender,
  }: HandoffRequestOf): Promise<HandoffValue> {
    if (from === to) throw handoffErrors.HANDOFF_SAME_DEVICE();
    const source = (await playback.streamsOf(accountNumber)).find((stream) => stream.deviceId === from);
    await devices.requireDevice(accountNumber, from);
    await devices.requireDevice(accountNumber, to);
    if (!source) throw handoffErrors.NOTHING_PLAYING();
    if (!(await commands.connected(accountNumber, to))) {
      throw commandErrors.DEVICE_NOT_CONNECTED(
        'The device handed to holds no command stream now: it cannot be told to play.',
      );
    }
    const { contentId, offset } = source;
    await playback.start(accountNumber, to, contentId, offset, { replacing: from });
    let play: Awaited<ReturnType<CommandService['send']>>;
    try {
      play = await commands.send({
        accountNumber,
        mediaPlayerId: to,
        type: 'play',
        contentId,
        offset,
        sender,
      });
    } catch (error) {
      // The target was not told: the stream goes back to the source, which plays on.
      await playback.start(accountNumber, from, contentId, offset, { replacing: to });
      throw error;
    }
    const stop = await commands
      .send({ accountNumber, mediaPlayerId: from, type: 'stop', sender })
      // Not connected, or its commands limited: its stream is over all the same, and the answer says it was not told.
      .catch((error: unknown) => {
        if (error instanceof ProblemError && error.status < 500) return undefined;
        throw error;
      });
    return {
      contentId,
      offset,
      from: stop ? { deviceId: from, command: stop } : { deviceId: from },
      to: { deviceId: to, command: play },
    };
  };
}
