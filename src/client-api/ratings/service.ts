import { authenticationErrors } from '../auth/errors.ts';
import type { Principal } from '../auth/principal.ts';
import { userErrors } from '../users/errors.ts';
import type { UserRepository } from '../users/repository.ts';
import { ratingErrors } from './errors.ts';
import type { RatingRepository } from './repository.ts';
import type { Rating } from './schemas.ts';

export interface RatingInput {
  module: string;
  contentId: number;
  rating: number;
  /** The rating user's platformUserId: a device's own user when omitted; required of operators. */
  userId: string | undefined;
  /** The rating user's account, when the caller names it. */
  accountNumber: string | undefined;
}

export interface RatingService {
  /** Sets the rating as `principal`: a device rates as its own user; an operator names the user. */
  rate(principal: Principal | undefined, input: RatingInput): Promise<Rating>;
}

type Rater = { userId: string; accountNumber: string };

export function createRatingService(
  repository: RatingRepository,
  users: Pick<UserRepository, 'findByPlatformUserId'>,
  now: () => number = Date.now,
): RatingService {
  /** Whose rating it is. */
  async function raterOf(principal: Principal | undefined, input: RatingInput): Promise<Rater> {
    if (principal?.kind === 'device') {
      if (input.userId !== undefined && input.userId !== principal.platformUserId) {
        throw authenticationErrors.USER_MISMATCH('A device rates as its own user only.');
      }
      if (input.accountNumber !== undefined && input.accountNumber !== principal.accountNumber) {
        throw authenticationErrors.ACCOUNT_MISMATCH();
      }
      return { userId: principal.platformUserId, accountNumber: principal.accountNumber };
    }
    if (input.userId === undefined) throw ratingErrors.RATING_USER_REQUIRED();
    const user = await users.findByPlatformUserId(input.userId);
    if (!user || (input.accountNumber !== undefined && input.accountNumber !== user.accountNumber)) {
      throw userErrors.USER_NOT_FOUND('No user has this userId (in this account).');
    }
    return { userId: user.platformUserId, accountNumber: user.accountNumber };
  }

  return {
    async rate(principal, input) {
      const { userId, accountNumber } = await raterOf(principal, input);
      const summary = await repository.upsertAndSummarise({
        module: input.module,
        content_id: input.contentId,
        user_id: userId,
        account_number: accountNumber,
        rating: input.rating,
        updated_at: now(),
      });
      return {
        module: input.module,
        contentId: input.contentId,
        userId,
        rating: input.rating,
        // Two decimals are plenty for a 1–5 scale and keep XML/JSON output stable.
        average: Math.round(summary.average * 100) / 100,
        count: summary.count,
      };
    },
  };
}
