import type { App } from '../../core/http/service-app.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { ClientApi } from '../composition.ts';
import { userErrors } from '../users/errors.ts';
import { ratingErrors } from './errors.ts';
import { ratingParams, ratingQuery, ratingSchema } from './schemas.ts';

const tag = 'ratings';

export function ratingRoutes(app: App, { access, ratings }: Pick<ClientApi, 'access' | 'ratings'>): void {
  // The contract names the operation twice, as PUT and as POST.
  for (const [method, id] of [
    ['PUT', 'AccountManagement_SetUserRatingAsync'],
    ['POST', 'AccountManagement_PostByDeviceClassContentsByModuleByContentIdRatingsByRating'],
  ] as const) {
    app.route({
      method,
      url: '/:deviceClass/contents/:module/:contentId/ratings/:rating',
      ...access.route(
        {
          id,
          code: 'SET_RATING',
          description:
            "Stores the user's rating, 1 to 5, of the content item (a new rating replaces the user's earlier one) and answers it with the content's average rating and number of ratings. The user comes from the device token, or from the query for an operator key.",
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
      handler: async ({ params, query, principal }) =>
        ratings.rate(principal, {
          module: params.module,
          contentId: params.contentId,
          rating: params.rating,
          userId: query.userId,
          accountNumber: query.accountNumber,
        }),
    });
  }
}
