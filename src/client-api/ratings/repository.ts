import type { Database } from '../../core/db/database.ts';
import type { ClientContentTables } from '../tables.ts';

export type RatingTables = Pick<ClientContentTables, 'ratings'>;

export type RatingRow = RatingTables['ratings'];

export interface RatingSummary {
  average: number;
  count: number;
}

export interface RatingRepository {
  /** Replaces the user's rating of the content and answers the content's average and count after it. */
  upsertAndSummarise(row: RatingRow): Promise<RatingSummary>;
}

export function createRatingRepository(database: Database): RatingRepository {
  const db = database.db.withTables<RatingTables>();
  return {
    upsertAndSummarise(row) {
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto('ratings')
          .values(row)
          .onConflict((conflict) =>
            conflict.columns(['module', 'content_id', 'user_id']).doUpdateSet({
              rating: row.rating,
              account_number: row.account_number,
              updated_at: row.updated_at,
            }),
          )
          .execute();
        const summary = await trx
          .selectFrom('ratings')
          .select((eb) => [eb.fn.sum<number>('rating').as('total'), eb.fn.countAll<number>().as('count')])
          .where('module', '=', row.module)
          .where('content_id', '=', row.content_id)
          .executeTakeFirstOrThrow();
        const count = Number(summary.count);
        return { count, average: count === 0 ? 0 : Number(summary.total) / count };
      });
    },
  };
}
