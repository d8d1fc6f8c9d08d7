import type { Database } from '../../core/db/database.ts';
import type { ClientContentTables } from '../tables.ts';
import type { AdBreak } from './schemas.ts';

export type AdInfoTables = Pick<ClientContentTables, 'ad_breaks'>;

export function createAdBreakRepository(database: Database) {
  const db = database.db.withTables<AdInfoTables>();
  return {
    async breaksOf(contents: string, contentId: string): Promise<AdBreak[]> {
      const rows = await db
        .selectFrom('ad_breaks')
        .select(['position', 'offset_seconds', 'max_ads'])
        .where('contents', '=', contents)
        .where('content_id', '=', contentId)
        .orderBy('offset_seconds')
        .execute();
      return rows.map((row) => ({ position: row.position, offset: row.offset_seconds, maxAds: row.max_ads }));
    },
    /** False when there was no such break. */
    async remove(
      contents: string,
      contentId: string,
      position: AdBreak['position'],
      offset: number,
    ): Promise<boolean> {
      const result = await db
        .deleteFrom('ad_breaks')
        .where('contents', '=', contents)
        .where('content_id', '=', contentId)
        .where('position', '=', position)
        .where('offset_seconds', '=', offset)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async put(contents: string, contentId: string, adBreak: AdBreak): Promise<void> {
      await db
        .insertInto('ad_breaks')
        .values({
          contents,
          content_id: contentId,
          position: adBreak.position,
          offset_seconds: adBreak.offset,
          max_ads: adBreak.maxAds,
        })
        .onConflict((conflict) =>
          conflict
            .columns(['contents', 'content_id', 'position', 'offset_seconds'])
            .doUpdateSet({ max_ads: adBreak.maxAds }),
        )
        .execute();
    },
  };
}

export type AdBreakRepository = ReturnType<typeof createAdBreakRepository>;
