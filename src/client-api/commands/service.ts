import { randomBytes } from 'node:crypto';
import type { Config } from '../../core/config.ts';
import { isoTime } from '../../core/iso-time.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { Principal } from '../auth/principal.ts';
import type { DeviceService } from '../devices/service.ts';
import { commandErrors } from './errors.ts';
import type { CommandRepository, DeviceKey } from './repository.ts';
import type { CommandValue, SendCommand } from './schemas.ts';
import type { CommandStreamHub } from './stream-hub.ts';
import type { CommandRow } from './tables.ts';
import { STREAM_TICKET_TTL, type StreamTickets } from './tickets.ts';

type Settings = Pick<
  Config,
  'COMMAND_TTL' | 'COMMANDS_PER_SENDER' | 'COMMANDS_PER_DEVICE' | 'REQUEST_LIMIT_WINDOW'
>;

/** A command to send: to which device of which account, what, and who sends it. */
export interface CommandSend extends SendCommand {
  accountNumber: string;
  mediaPlayerId: string;
  /** Whose limit it counts against (`senderOf`). */
  sender: string;
}

/** Whose commands the limit per sender counts together: a device, an assistant user, an operator key. */
export function senderOf(principal: Principal | undefined): string {
  if (principal?.kind === 'device') return `device:${principal.accountNumber}/${principal.deviceId}`;
  if (principal?.kind === 'assistant') return `assistant:${principal.accountNumber}/${principal.assistantId}`;
  if (principal?.kind === 'operator') return `operator:${principal.keyId}`;
  throw new Error('a command is sent by a signed-in party');
}

/** A time-ordered id: the commands of a device sort by it as by when they were sent. */
const newCommandId = (now: number) =>
  `${now.toString(36).padStart(9, '0')}${randomBytes(9).toString('base64url')}`;

export function toCommand(row: CommandRow, now: number): CommandValue {
  const expired = row.state !== 'acknowledged' && Number(row.expires_at) <= now;
  const command: CommandValue = {
    id: row.id,
    mediaPlayerId: row.device_id,
    type: row.type,
    state: expired ? 'expired' : row.state,
    sentAt: isoTime(Number(row.created_at)),
    expiresAt: isoTime(Number(row.expires_at)),
  };
  if (row.content_id !== null) command.contentId = Number(row.content_id);
  if (row.offset_seconds !== null) command.offset = row.offset_seconds;
  if (row.delivered_at !== null) command.deliveredAt = isoTime(Number(row.delivered_at));
  if (row.acknowledged_at !== null) command.acknowledgedAt = isoTime(Number(row.acknowledged_at));
  return command;
}

export interface CommandServiceDependencies {
  config: Settings;
  repository: CommandRepository;
  hub: CommandStreamHub;
  devices: Pick<DeviceService, 'requireDevice'>;
  tickets: StreamTickets;
  /** The absolute URL of a device's command stream, without query. */
  streamUrl: (deviceClass: string, deviceId: string) => string;
  refused: (limit: string) => void;
  now?: () => number;
}

/**
 * Commands to devices: sent to a device whose stream some process holds (else 409 DEVICE_NOT_CONNECTED),
 * within the limits per sender and per device; read back with their state; acknowledged by the device.
 * `send` is what the handoff and the assistant call.
 */
export function createCommandService(dependencies: CommandServiceDependencies) {
  const { config, repository, hub, devices, tickets } = dependencies;
  const now = dependencies.now ?? Date.now;

  /** The path's device must be the device token's own (DEVICE_MISMATCH otherwise). */
  function ownDevice(principal: Principal | undefined, path: { deviceClass: string; deviceId: string }) {
    if (principal?.kind !== 'device') {
      throw authenticationErrors.DEVICE_MISMATCH("Only the device's own token may act on its commands.");
    }
    if (principal.deviceId !== path.deviceId || principal.deviceClass !== path.deviceClass) {
      throw authenticationErrors.DEVICE_MISMATCH();
    }
    return principal;
  }

  async function checkSender(sender: string, time: number): Promise<void> {
    const windowMs = config.REQUEST_LIMIT_WINDOW * 1000;
    const bySender = await repository.sentBy(sender, time - windowMs);
    if (bySender.count >= config.COMMANDS_PER_SENDER) {
      const left = Math.max(1, Math.ceil(((bySender.oldest ?? time) + windowMs - time) / 1000));
      dependencies.refused('commands_per_sender');
      throw commandErrors.COMMANDS_LIMITED(
        `At most ${config.COMMANDS_PER_SENDER} commands per ${config.REQUEST_LIMIT_WINDOW} s; retry in ${left} s.`,
        { headers: { 'retry-after': String(left) } },
      );
    }
  }

  async function checkPending(device: DeviceKey, time: number): Promise<void> {
    const pending = await repository.pending(device, time);
    if (pending.count >= config.COMMANDS_PER_DEVICE) {
      const left = Math.max(1, Math.ceil(((pending.firstExpiry ?? time) - time) / 1000));
      dependencies.refused('commands_per_device');
      throw commandErrors.COMMANDS_PENDING_LIMITED(
        `The device holds ${config.COMMANDS_PER_DEVICE} commands not acknowledged; retry in ${left} s.`,
        { headers: { 'retry-after': String(left) } },
      );
    }
  }

  return {
    ownDevice,

    /** Sends a command: 202's body, state `sent`; throws DEVICE_NOT_CONNECTED when no process holds the stream. */
    async send(send: CommandSend): Promise<CommandValue> {
      if (send.type === 'play' && send.contentId === undefined)
        throw commandErrors.COMMAND_CONTENT_REQUIRED();
      await devices.requireDevice(send.accountNumber, send.mediaPlayerId);
      const device = { accountNumber: send.accountNumber, deviceId: send.mediaPlayerId };
      const time = now();
      await checkSender(send.sender, time);
      if (!(await hub.connected(device))) throw commandErrors.DEVICE_NOT_CONNECTED();
      await checkPending(device, time);
      const row: CommandRow = {
        id: newCommandId(time),
        account_number: send.accountNumber,
        device_id: send.mediaPlayerId,
        type: send.type,
        content_id: send.type === 'play' ? (send.contentId ?? null) : null,
        offset_seconds: send.type === 'play' ? (send.offset ?? 0) : null,
        sender: send.sender,
        state: 'sent',
        created_at: time,
        expires_at: time + config.COMMAND_TTL * 1000,
        delivered_at: null,
        acknowledged_at: null,
      };
      await repository.insert(row);
      hub.notify(device);
      return toCommand(row, time);
    },

    /** Whether some process holds the device's command stream now. */
    connected: (accountNumber: string, deviceId: string): Promise<boolean> =>
      hub.connected({ accountNumber, deviceId }),

    async status(accountNumber: string, mediaPlayerId: string, commandId: string): Promise<CommandValue> {
      await devices.requireDevice(accountNumber, mediaPlayerId);
      const row = await repository.find({ accountNumber, deviceId: mediaPlayerId }, commandId);
      if (!row) throw commandErrors.COMMAND_NOT_FOUND();
      return toCommand(row, now());
    },

    /** The device says it obeyed: 204; again is the same; expired first is 409 COMMAND_EXPIRED. */
    async acknowledge(
      principal: Principal | undefined,
      path: { deviceClass: string; deviceId: string; commandId: string },
    ): Promise<void> {
      const own = ownDevice(principal, path);
      const device = { accountNumber: own.accountNumber, deviceId: own.deviceId };
      const row = await repository.find(device, path.commandId);
      if (!row) throw commandErrors.COMMAND_NOT_FOUND();
      if (row.state === 'acknowledged') return;
      const time = now();
      if (Number(row.expires_at) <= time) throw commandErrors.COMMAND_EXPIRED();
      await repository.acknowledge(device, path.commandId, time);
    },

    /** A ticket for the device's stream URL (a browser's EventSource sends no Authorization). */
    async ticket(principal: Principal | undefined, path: { deviceClass: string; deviceId: string }) {
      const own = ownDevice(principal, path);
      const ticket = await tickets.issue(own);
      const url = dependencies.streamUrl(own.deviceClass, own.deviceId);
      return { ticket, streamUrl: `${url}?t=${encodeURIComponent(ticket)}`, expiresIn: STREAM_TICKET_TTL };
    },
  };
}

export type CommandService = ReturnType<typeof createCommandService>;
