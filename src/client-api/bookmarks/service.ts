import { LRUCache } from 'lru-cache';
import { isoTime } from '../../core/iso-time.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { AccountRepository } from '../accounts/repository.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { DevicePrincipal, Principal } from '../auth/principal.ts';
import { userErrors } from '../users/errors.ts';
import { bookmarkErrors } from './errors.ts';
import type { BookmarkFilter, BookmarkRepository, BookmarkRow } from './repository.ts';
import { type Bookmark, MAX_CLOCK_SKEW_MS } from './schemas.ts';

export { MAX_CLOCK_SKEW_MS };

export interface BookmarkSave {
  userHash: string;
  contentId: number;
  offset: number;
  deviceId: string;
  deviceClass: string;
  version: string | null;
  /** Client time of the position, epoch ms; the server's time when the client gave none. */
  at: number | undefined;
}

export interface BookmarkService {
  read(filter: BookmarkFilter): Promise<Bookmark>;
  /**
   * Saves a position as `principal`: a device under its own deviceId and deviceClass, in its own account; an operator
   * for any user, in the account that holds the userHash.
   */
  save(principal: Principal | undefined, save: BookmarkSave): Promise<Bookmark>;
  /** The account user's bookmarks, the most recent first; 404 ACCOUNT_NOT_FOUND for no such account. */
  recent(accountNumber: string, limit: number, contentId?: number): Promise<Bookmark[]>;
}

/** A device is marked playing at most this often: `playing` has a 60 s window, so 5 s is precise enough. */
const MARK_RESOLUTION_MS = 5_000;
const MARKS_KEPT = 10_000;

/** Marks the device playing at `at`; `position` is what it saved (its live stream's report). */
export type MarkPlaying = (
  accountNumber: string,
  deviceId: string,
  at: number,
  position: { contentId: number; offset: number },
) => Promise<void>;

export function createBookmarkService(
  repository: BookmarkRepository,
  accounts: Pick<AccountRepository, 'findByUserHash' | 'find'>,
  markPlaying: MarkPlaying,
  now: () => number = Date.now,
): BookmarkService {
  /** A device saves in its own account, under its own deviceId and deviceClass. */
  function deviceAccount(principal: DevicePrincipal, save: BookmarkSave): string {
    if (principal.deviceId !== save.deviceId) {
      throw authenticationErrors.DEVICE_MISMATCH('A device saves bookmarks under its own deviceId only.');
    }
    // The stored deviceClass tells which kind of device last played: a token cannot claim another.
    if (principal.deviceClass !== save.deviceClass) {
      throw authenticationErrors.DEVICE_MISMATCH('A device saves bookmarks under its own deviceClass only.');
    }
    return principal.accountNumber;
  }

  /** An operator saves in the account that holds the userHash. */
  async function holderAccount(save: BookmarkSave): Promise<string> {
    const account = await accounts.findByUserHash(save.userHash);
    if (!account) throw userErrors.USER_NOT_FOUND('No account has this userHash.');
    return account.accountNumber;
  }

  // In-process and short-lived (MARK_RESOLUTION_MS): spares the devices table a write per save.
  const lastMarked = new LRUCache<string, number>({ max: MARKS_KEPT });
  /** The write when one is due, else undefined: the common case costs no promise. */
  function mark(
    accountNumber: string,
    deviceId: string,
    at: number,
    save: BookmarkSave,
  ): Promise<void> | undefined {
    const key = `${accountNumber}\u0000${deviceId}`;
    const previous = lastMarked.get(key);
    if (previous !== undefined && at - previous < MARK_RESOLUTION_MS) return undefined;
    lastMarked.set(key, at);
    return markPlaying(accountNumber, deviceId, at, { contentId: save.contentId, offset: save.offset });
  }

  return {
    async recent(accountNumber, limit, contentId) {
      const account = await accounts.find(accountNumber);
      if (!account) throw accountErrors.ACCOUNT_NOT_FOUND();
      const rows = await repository.recent(account.userHash, limit, contentId);
      return rows.map((row) => toBookmark(row));
    },

    async read(filter) {
      const row = await repository.find(filter);
      if (!row) throw bookmarkErrors.BOOKMARK_NOT_FOUND();
      return toBookmark(row);
    },
    async save(principal, save) {
      const accountNumber =
        principal?.kind === 'device' ? deviceAccount(principal, save) : await holderAccount(save);
      const time = now();
      if (save.at !== undefined && save.at > time + MAX_CLOCK_SKEW_MS) {
        throw bookmarkErrors.BOOKMARK_TIME_IN_FUTURE(
          `at must not be more than ${MAX_CLOCK_SKEW_MS / 1000} seconds ahead of the server's clock.`,
        );
      }
      const row: BookmarkRow = {
        user_hash: save.userHash,
        content_id: save.contentId,
        account_number: accountNumber,
        version: save.version,
        offset_seconds: save.offset,
        position_at: save.at ?? time,
        device_id: save.deviceId,
        device_class: save.deviceClass,
        updated_at: time,
      };
      const written = await repository.saveUnlessStale(row);
      if (written) {
        const marking = mark(accountNumber, save.deviceId, time, save);
        if (marking !== undefined) await marking;
        return toBookmark(written, true);
      }
      // The stored bookmark is newer: answer it, so the device can resume from the newer position.
      const stored = await repository.find({ userHash: save.userHash, contentId: save.contentId });
      if (!stored) throw new Error('bookmark vanished between a refused upsert and its read');
      return toBookmark(stored, false);
    },
  };
}

/**
 * The answer; `applied` only on a save. The optional keys are assigned, not spread in: this runs on every
 * read and save (the benchmarked hot paths). Every encoder writes the schema's key order, not this one's.
 */
function toBookmark(row: BookmarkRow, applied?: boolean): Bookmark {
  const bookmark: Bookmark = {
    userHash: row.user_hash,
    contentId: row.content_id,
    offset: row.offset_seconds,
    deviceId: row.device_id,
    deviceClass: row.device_class,
    at: isoTime(row.position_at),
    updatedAt: isoTime(row.updated_at),
  };
  if (row.account_number !== null) bookmark.accountNumber = row.account_number;
  if (row.version !== null) bookmark.version = row.version;
  if (applied !== undefined) bookmark.applied = applied;
  return bookmark;
}
