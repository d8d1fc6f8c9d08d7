import type { Config } from '../../core/config.ts';
import { directLineErrors } from './errors.ts';
import type { DirectLineRepository } from './repository.ts';
import type { UploadAdmission, UploadTotals, UploadUsage } from './upload-usage.ts';

export type UploadQuotaSettings = Pick<
  Config,
  | 'DIRECTLINE_TOKEN_UPLOAD_FILES'
  | 'DIRECTLINE_TOKEN_UPLOAD_BYTES'
  | 'DIRECTLINE_CONVERSATION_UPLOAD_FILES'
  | 'DIRECTLINE_CONVERSATION_UPLOAD_BYTES'
  | 'DIRECTLINE_UPLOAD_STORE_BYTES'
  | 'REQUEST_LIMIT_WINDOW'
>;

/** The names the refusals are counted by in /metrics (`sintonia_limit_refusals_total{limit}`). */
export type UploadLimit = 'upload_conversation_full' | 'upload_per_token' | 'upload_store_full';

/** The limits of the embedded channel's uploads beyond one upload's size, all counted in the store. */
export interface UploadQuota extends UploadAdmission {
  /** Refuses an upload to a conversation that has no room left at all, before its body is read. */
  checkRoom(conversationId: string, now: number): Promise<void>;
}

const passes = (held: UploadTotals, incoming: UploadTotals, files: number, bytes: number) =>
  held.files + incoming.files > files || held.bytes + incoming.bytes > bytes;

/**
 * The conversation's own limit first (413: retrying never helps), then the token's window and the store's
 * budget (429: room comes back as the window moves on or the retention purge removes conversations).
 * `storeRetryAfter` is how often that purge runs, in seconds.
 */
export function createUploadQuota(
  settings: UploadQuotaSettings,
  repository: Pick<DirectLineRepository, 'uploadUsage'>,
  storeRetryAfter: number,
  refused: (limit: UploadLimit) => void = () => {},
): UploadQuota {
  const windowSeconds = settings.REQUEST_LIMIT_WINDOW;
  const windowStart = (now: number) => now - windowSeconds * 1000;
  const retryAfter = (seconds: number) => ({ headers: { 'retry-after': String(seconds) } });

  function admit(usage: UploadUsage, incoming: UploadTotals): void {
    const conversation = [
      settings.DIRECTLINE_CONVERSATION_UPLOAD_FILES,
      settings.DIRECTLINE_CONVERSATION_UPLOAD_BYTES,
    ] as const;
    if (passes(usage.conversation, incoming, ...conversation)) {
      refused('upload_conversation_full');
      throw directLineErrors.DIRECTLINE_CONVERSATION_UPLOADS_FULL(
        `This conversation may hold ${conversation[0]} files and ${conversation[1]} bytes of uploads; start a new conversation.`,
      );
    }
    const token = [settings.DIRECTLINE_TOKEN_UPLOAD_FILES, settings.DIRECTLINE_TOKEN_UPLOAD_BYTES] as const;
    if (passes(usage.recent, incoming, ...token)) {
      refused('upload_per_token');
      throw directLineErrors.DIRECTLINE_UPLOAD_RATE_LIMITED(
        `A token may upload ${token[0]} files and ${token[1]} bytes within ${windowSeconds} s; retry later.`,
        retryAfter(windowSeconds),
      );
    }
    if (usage.store.bytes + incoming.bytes > settings.DIRECTLINE_UPLOAD_STORE_BYTES) {
      refused('upload_store_full');
      throw directLineErrors.DIRECTLINE_UPLOAD_STORE_FULL(undefined, retryAfter(storeRetryAfter));
    }
  }

  return {
    windowStart,
    admit,
    async checkRoom(conversationId, now) {
      // Any upload brings at least one file and, but for an empty file, one byte.
      admit(await repository.uploadUsage(conversationId, windowStart(now)), { files: 1, bytes: 1 });
    },
  };
}

/**
 * The repository as the conversation service gets it: every upload it stores is weighed against the
 * quota inside the upload's own transaction, under the conversation's row lock.
 */
export function withUploadQuota(repository: DirectLineRepository, quota: UploadQuota): DirectLineRepository {
  return {
    ...repository,
    append: (conversationId, now, build, awaitAnswer, files, admission, budget) =>
      repository.append(conversationId, now, build, awaitAnswer, files, admission ?? quota, budget),
  };
}
