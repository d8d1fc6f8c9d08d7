import type { Kysely } from 'kysely';
import type { CoreTables } from '../../core/db/tables.ts';
import type { DirectLineTables } from './tables.ts';

/** How many uploaded files, and their bytes (before base64). */
export interface UploadTotals {
  files: number;
  bytes: number;
}

/** What the store holds already, as an upload to one conversation is weighed. */
export interface UploadUsage {
  /** Every file of the conversation. */
  conversation: UploadTotals;
  /** The conversation's files stored since the start of the token window. */
  recent: UploadTotals;
  /** The files of every conversation. */
  store: UploadTotals;
}

/**
 * The limits an upload is weighed against: `admit` throws the refusal when storing `incoming` on top of
 * `usage` passes one of them. The repository asks it inside the upload's transaction.
 */
export interface UploadAdmission {
  /** Where the token window of an upload made at `now` starts (epoch milliseconds). */
  windowStart(now: number): number;
  admit(usage: UploadUsage, incoming: UploadTotals): void;
}

type UploadStore = Kysely<CoreTables & DirectLineTables>;

async function totals(db: UploadStore, of?: { conversationId: string; since?: number }) {
  const row = await db
    .selectFrom('directline_uploads')
    .select((eb) => [eb.fn.countAll().as('files'), eb.fn.sum('size').as('bytes')])
    .$if(of !== undefined, (query) => query.where('conversation_id', '=', of?.conversationId ?? ''))
    .$if(of?.since !== undefined, (query) => query.where('created_at', '>=', of?.since ?? 0))
    .executeTakeFirst();
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** The totals an upload to `conversationId` is weighed against; `since` starts the token window. */
export async function measureUploads(
  db: UploadStore,
  conversationId: string,
  since: number,
): Promise<UploadUsage> {
  return {
    conversation: await totals(db, { conversationId }),
    recent: await totals(db, { conversationId, since }),
    store: await totals(db),
  };
}

/** The totals of the files one upload brings. */
export function totalsOf(files: readonly { size: number }[]): UploadTotals {
  return { files: files.length, bytes: files.reduce((sum, file) => sum + file.size, 0) };
}
