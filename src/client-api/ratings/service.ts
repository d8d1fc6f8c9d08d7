import type { RatingRepository } from './repository.ts';
import type { Rating } from './schemas.ts';

export interface RatingInput {
  module: string;
  contentId: number;
  rating: number;
  userId: string;
  accountNumber: string | null;
}

export interface RatingService {
  rate(input: RatingInput): Promise<Rating>;
}

export function createRatingService(
  repository: RatingRepository,
  now: () => number = Date.now,
): RatingService {
  return {
    async rate(input) {
      const summary = await repository.upsertAndSummarise({
        module: input.module,
        content_id: input.contentId,
        user_id: input.userId,
        account_number: input.accountNumber,
        rating: input.rating,
        updated_at: now(),
      });
      return {
        module: input.module,
        contentId: input.contentId,
        userId: input.userId,
        rating: input.rating,
        // Two decimals are plenty for a 1–5 scale and keep XML/JSON output stable.
        average: Math.round(summary.average * 100) / 100,
        count: summary.count,
      };
    },
  };
}
