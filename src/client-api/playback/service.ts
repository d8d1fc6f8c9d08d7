import { isoTime } from '../../core/iso-time.ts';
import { accountErrors } from '../accounts/errors.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { Principal } from '../auth/principal.ts';
import { deviceErrors } from '../devices/errors.ts';
import { playbackErrors } from './errors.ts';
import type { PlaybackRepository, StreamRow } from './repository.ts';
import type { StartedStream, Stream, Watching } from './schemas.ts';

export interface PlaybackConfig {
  /** Seconds without a report after which a stream is over. */
  PLAYBACK_STALE_AFTER: number;
  /** An account's limit unless an operator set its own. */
  PLAYBACK_STREAM_LIMIT: number;
}

/** Which device plays what: the path of PUT/DELETE …/{deviceClass}/{deviceId}/users/{userHash}/playback. */
export interface DeviceStream {
  deviceClass: string;
  deviceId: string;
  contentId: number;
  offset: number;
}

/**
 * Streams, what the household plays now. `start`, `stop` and `watching` are what other operations build on
 * (a handoff, the assistant): each takes the account and device it acts on, its caller has checked who may.
 */
export interface PlaybackService {
  /** A device's start or report as its own token makes it (PUT …/playback/{contentId}). */
  report(principal: Principal | undefined, stream: DeviceStream): Promise<StartedStream>;
  /** A device's stop as its own token makes it (DELETE …/playback). */
  end(principal: Principal | undefined, device: Omit<DeviceStream, 'contentId' | 'offset'>): Promise<void>;
  /**
   * Starts (or goes on with) the device's stream within the account's limit: 409 STREAM_LIMIT_REACHED when
   * the account plays its limit on other devices, 404 for no such account or device. With `replacing`
   * (a handoff), that other device's stream ends in the same transaction and does not count.
   */
  start(
    accountNumber: string,
    deviceId: string,
    contentId: number,
    offset: number,
    options?: { replacing?: string },
  ): Promise<StartedStream>;
  /** The device's stream is over (no error when it had none). */
  stop(accountNumber: string, deviceId: string): Promise<void>;
  /** The account's live streams and limit; 404 ACCOUNT_NOT_FOUND. */
  watching(accountNumber: string): Promise<Watching>;
  /** The account's live streams. */
  streamsOf(accountNumber: string): Promise<Stream[]>;
  /** An operator sets the account's own limit; 404 ACCOUNT_NOT_FOUND. */
  setLimit(accountNumber: string, limit: number): Promise<{ accountNumber: string; limit: number }>;
  /** Live streams of every account, for /metrics. */
  liveCount(): Promise<number>;
}

export function createPlaybackService(
  repository: PlaybackRepository,
  config: PlaybackConfig,
  onRefused: () => void = () => {},
  now: () => number = Date.now,
): PlaybackService {
  const staleBefore = (at: number) => at - config.PLAYBACK_STALE_AFTER * 1000;

  /** A device plays under its own deviceId and deviceClass only, as it saves bookmarks. */
  function ownDevice(principal: Principal | undefined, device: { deviceId: string; deviceClass: string }) {
    if (principal?.kind !== 'device') {
      throw authenticationErrors.DEVICE_MISMATCH('Only a device reports its own playback.');
    }
    if (principal.deviceId !== device.deviceId || principal.deviceClass !== device.deviceClass) {
      throw authenticationErrors.DEVICE_MISMATCH(
        'A device reports playback under its own deviceId and class only.',
      );
    }
    return principal.accountNumber;
  }

  const service: PlaybackService = {
    report(principal, stream) {
      const accountNumber = ownDevice(principal, stream);
      return service.start(accountNumber, stream.deviceId, stream.contentId, stream.offset);
    },

    async end(principal, device) {
      await service.stop(ownDevice(principal, device), device.deviceId);
    },

    async start(accountNumber, deviceId, contentId, offset, options = {}) {
      const at = now();
      const outcome = await repository.start({
        accountNumber,
        deviceId,
        contentId,
        offset,
        at,
        staleBefore: staleBefore(at),
        defaultLimit: config.PLAYBACK_STREAM_LIMIT,
        replacing: options.replacing,
      });
      switch (outcome.kind) {
        case 'no-account':
          throw accountErrors.ACCOUNT_NOT_FOUND();
        case 'no-device':
          throw deviceErrors.DEVICE_NOT_FOUND();
        case 'refused':
          onRefused();
          throw playbackErrors.STREAM_LIMIT_REACHED(
            `The account plays ${outcome.active} streams at once, its limit is ${outcome.limit}.`,
          );
        case 'started':
          return { ...toStream(outcome.stream), limit: outcome.limit, active: outcome.active };
      }
    },

    stop: (accountNumber, deviceId) => repository.stop(accountNumber, deviceId),

    async watching(accountNumber) {
      const found = await repository.watching(accountNumber, staleBefore(now()));
      if (!found) throw accountErrors.ACCOUNT_NOT_FOUND();
      return { limit: found.limit ?? config.PLAYBACK_STREAM_LIMIT, streams: found.streams.map(toStream) };
    },

    async streamsOf(accountNumber) {
      return (await service.watching(accountNumber)).streams;
    },

    async setLimit(accountNumber, limit) {
      if (!(await repository.setLimit(accountNumber, limit))) throw accountErrors.ACCOUNT_NOT_FOUND();
      return { accountNumber, limit };
    },

    liveCount: () => repository.liveCount(staleBefore(now())),
  };
  return service;
}

function toStream(row: StreamRow): Stream {
  return {
    deviceId: row.device_id,
    deviceClass: row.device_class,
    name: row.name,
    contentId: row.stream_content_id,
    offset: row.stream_offset,
    since: isoTime(row.stream_since),
    reportedAt: isoTime(row.stream_reported_at),
  };
}
