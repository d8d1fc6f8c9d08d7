import type { FastifyRequest } from 'fastify';
import type { App } from '../../core/http/service-app.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { ClientApi } from '../composition.ts';
import { operation } from '../openapi.ts';
import { userErrors } from '../users/errors.ts';
import { ratingErrors } from './errors.ts';
import { ratingParams, ratingQuery, ratingSchema } from './schemas.ts';
import type { RatingInput } from './service.ts';

const tag = 'ratings';

export function ratingRoutes(app: App, { guards, repositories, ratings }: ClientApi): void {
  /** Whose rating: a device rates as its own user; an operator names the user. */
  async function rater(
    request: FastifyRequest,
    query: { userId?: string; accountNumber?: string },
  ): Promise<Pick<RatingInput, 'userId' | 'accountNumber'>> {
    const principal = request.principal;
    if (principal?.kind === 'device') {
      if (query.userId !== undefined && query.userId !== principal.platformUserId) {
        throw authenticationErrors.USER_MISMATCH('A device rates as its own user only.');
      }
      if (query.accountNumber !== undefined && query.accountNumber !== principal.accountNumber) {
        throw authenticationErrors.ACCOUNT_MISMATCH();
      }
      return { userId: principal.platformUserId, accountNumber: principal.accountNumber };
    }
    if (query.userId === undefined) throw ratingErrors.RATING_USER_REQUIRED();
    const user = await repositories.users.findByPlatformUserId(query.userId);
    if (!user || (query.accountNumber !== undefined && query.accountNumber !== user.accountNumber)) {
      throw userErrors.USER_NOT_FOUND('No user has this userId (in this account).');
    }
    return { userId: user.platformUserId, accountNumber: user.accountNumber };
  }

  for (const [method, id] of [
    ['PUT', 'AccountManagement_SetUserRatingAsync'],
    ['POST', 'AccountManagement_PostByDeviceClassContentsByModuleByContentIdRatingsByRating'],
  ] as const) {
    app.route({
      method,
      url: '/:deviceClass/contents/:module/:contentId/ratings/:rating',
      onRequest: [guards.authenticate],
      schema: operation(
        {
          id,
          code: 'SET_RATING',
          summary:
            "Sets the user's rating (1-5) of a content item; answers it with the content's average and count.",
          tag,
          security: 'deviceOrOperator',
          errors: [
            ratingErrors.RATING_USER_REQUIRED,
            authenticationErrors.USER_MISMATCH,
            authenticationErrors.ACCOUNT_MISMATCH,
            userErrors.USER_NOT_FOUND,
          ],
        },
        {
          params: ratingParams,
          querystring: ratingQuery,
          response: { 200: ratingSchema },
        },
      ),
      handler: async (request) => {
        const who = await rater(request, request.query);
        return ratings.rate({
          module: request.params.module,
          contentId: request.params.contentId,
          rating: request.params.rating,
          ...who,
        });
      },
    });
  }
}
