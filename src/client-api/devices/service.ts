import type { Config } from '../../core/config.ts';
import { isoTime } from '../../core/iso-time.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { AccountService } from '../accounts/service.ts';
import type { SessionRepository } from '../sessions/repository.ts';
import { deviceErrors } from './errors.ts';
import type { DeviceListing, DeviceRepository, DeviceRow } from './repository.ts';
import { DEVICE_NAME_MAX_LENGTH, type DeviceBaseValue } from './schemas.ts';

type Settings = Pick<
  Config,
  'DEVICE_DELETE_COOLDOWN' | 'MAX_DEVICES_PER_ACCOUNT' | 'PLAYING_WINDOW' | 'SESSION_IDLE_TIMEOUT'
>;

export function createDeviceService(
  config: Settings,
  accounts: AccountService,
  devices: DeviceRepository,
  sessions: SessionRepository,
) {
  const playingSince = (now: number) => now - config.PLAYING_WINDOW * 1000;

  const toDeviceBase = (row: DeviceListing, now: number): DeviceBaseValue => ({
    mediaPlayerId: row.device_id,
    name: row.name,
    deviceClass: row.device_class,
    enabled: row.enabled === 1,
    registeredAt: isoTime(row.registered_at),
    lastSeenAt: isoTime(row.last_seen_at),
    playing: row.last_playback_at !== null && row.last_playback_at >= playingSince(now),
  });

  async function requireDevice(accountNumber: string, deviceId: string): Promise<DeviceRow> {
    await accounts.require(accountNumber);
    const device = await devices.find(accountNumber, deviceId);
    if (!device) throw deviceErrors.DEVICE_NOT_FOUND();
    return device;
  }

  /** Seconds left of the delete cool-down (0 when the device may be deleted now). */
  const cooldownLeft = (device: DeviceRow, now: number) =>
    Math.max(0, Math.ceil((device.activated_at + config.DEVICE_DELETE_COOLDOWN * 1000 - now) / 1000));

  return {
    toDeviceBase,
    requireDevice,

    async list(accountNumber: string, now = Date.now()): Promise<DeviceBaseValue[]> {
      const rows = await devices.list(accountNumber);
      if (rows === undefined) throw accountErrors.ACCOUNT_NOT_FOUND();
      return rows.map((row) => toDeviceBase(row, now));
    },

    async get(accountNumber: string, deviceId: string, now = Date.now()): Promise<DeviceBaseValue> {
      return toDeviceBase(await requireDevice(accountNumber, deviceId), now);
    },

    /** Ids of the devices signed in: with a session neither closed nor idle past SESSION_IDLE_TIMEOUT. */
    async signedIn(accountNumber: string, now = Date.now()): Promise<string[]> {
      await accounts.require(accountNumber);
      return sessions.signedInDevices(accountNumber, now - config.SESSION_IDLE_TIMEOUT * 1000);
    },

    async playing(accountNumber: string, now = Date.now()): Promise<string[]> {
      await accounts.require(accountNumber);
      return devices.playingSince(accountNumber, playingSince(now));
    },

    /** Refused with 409 and Retry-After while the device is inside its cool-down; ends its sessions. */
    async remove(accountNumber: string, deviceId: string, deviceClass: string | undefined, now = Date.now()) {
      const device = await requireDevice(accountNumber, deviceId);
      if (deviceClass !== undefined && device.device_class !== deviceClass)
        throw deviceErrors.DEVICE_NOT_FOUND();
      const left = cooldownLeft(device, now);
      if (left > 0) {
        throw deviceErrors.DEVICE_DELETE_COOLDOWN(
          `The device was activated too recently to be deleted; retry in ${left} s.`,
          { headers: { 'retry-after': String(left) } },
        );
      }
      await sessions.close({ accountNumber, deviceId }, now);
      await devices.remove(accountNumber, [deviceId]);
    },

    /**
     * Deletes the account's devices (of one class when given) that are outside their cool-down; those
     * inside it stay, so the bulk form cannot bypass the rule that single deletes enforce.
     */
    async removeAll(
      accountNumber: string,
      deviceClass: string | undefined,
      now = Date.now(),
    ): Promise<number> {
      const all = await devices.all(accountNumber);
      if (all === undefined) throw accountErrors.ACCOUNT_NOT_FOUND();
      const doomed = all.filter(
        (device) =>
          (deviceClass === undefined || device.device_class === deviceClass) &&
          cooldownLeft(device, now) === 0,
      );
      for (const device of doomed) await sessions.close({ accountNumber, deviceId: device.device_id }, now);
      return devices.remove(
        accountNumber,
        doomed.map((device) => device.device_id),
      );
    },

    /** Enabling counts against MAX_DEVICES_PER_ACCOUNT and restarts the cool-down; disabling ends sessions. */
    async setEnabled(accountNumber: string, deviceId: string, enabled: boolean, now = Date.now()) {
      const device = await requireDevice(accountNumber, deviceId);
      if (enabled) {
        if (device.enabled === 1) return;
        if ((await devices.countEnabled(accountNumber)) >= config.MAX_DEVICES_PER_ACCOUNT) {
          throw deviceErrors.DEVICE_LIMIT_REACHED(
            `The account already holds ${config.MAX_DEVICES_PER_ACCOUNT} enabled devices.`,
          );
        }
        await devices.update(accountNumber, deviceId, { enabled: 1, activated_at: now });
        return;
      }
      if (device.enabled === 1) await devices.update(accountNumber, deviceId, { enabled: 0 });
      await sessions.close({ accountNumber, deviceId }, now);
    },

    async rename(
      accountNumber: string,
      deviceId: string,
      name: unknown,
    ): Promise<{ mediaPlayerId: string; name: string }> {
      const trimmed = typeof name === 'string' ? name.trim() : '';
      if (trimmed.length === 0) throw deviceErrors.DEVICE_NAME_REQUIRED();
      if ([...trimmed].length > DEVICE_NAME_MAX_LENGTH) {
        throw deviceErrors.DEVICE_NAME_TOO_LONG(
          `A device name has at most ${DEVICE_NAME_MAX_LENGTH} characters.`,
        );
      }
      await requireDevice(accountNumber, deviceId);
      await devices.update(accountNumber, deviceId, { name: trimmed });
      return { mediaPlayerId: deviceId, name: trimmed };
    },
  };
}

export type DeviceService = ReturnType<typeof createDeviceService>;
