import type { FastifyRequest } from 'fastify';
import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { contentErrors } from '../content-errors.ts';
import type { ClientApiDeps } from '../deps.ts';
import { operation } from '../openapi.ts';
import { createRatingRepository } from './repository.ts';
import { ratingParams, ratingQuery, ratingSchema } from './schemas.ts';
import { createRatingService, type RatingInput } from './service.ts';

const tag = 'ratings';

export function registerRatingRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, repositories } = deps;
  const ratings = createRatingService(createRatingRepository(deps.core.database));

  /** Whose rating: a device rates as its own user; an operator names the user. */
  async function rater(
    request: FastifyRequest,
    query: { userId?: string; accountNumber?: string },
  ): Promise<Pick<RatingInput, 'userId' | 'accountNumber'>> {
    const principal = request.principal;
    if (principal?.kind === 'device') {
      if (query.userId !== undefined && query.userId !== principal.platformUserId) {
        throw contentErrors.USER_MISMATCH('A device rates as its own user only.');
      }
      if (query.accountNumber !== undefined && query.accountNumber !== principal.accountNumber) {
        throw contentErrors.ACCOUNT_MISMATCH();
      }
      return { userId: principal.platformUserId, accountNumber: principal.accountNumber };
    }
    if (query.userId === undefined) throw contentErrors.RATING_USER_REQUIRED();
    const user = await repositories.users.findByPlatformUserId(query.userId);
    if (!user || (query.accountNumber !== undefined && query.accountNumber !== user.accountNumber)) {
      throw contentErrors.USER_NOT_FOUND('No user has this userId (in this account).');
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
      schema: {
        ...operation({
          id,
          errors: {
            400: ['RATING_USER_REQUIRED'],
            403: ['USER_MISMATCH', 'ACCOUNT_MISMATCH'],
            404: ['USER_NOT_FOUND'],
          },
          code: 'SET_RATING',
          summary:
            "Sets the user's rating (1-5) of a content item; answers it with the content's average and count.",
          tag,
          security: 'deviceOrOperator',
        }),
        params: ratingParams,
        querystring: ratingQuery,
        response: { 200: ratingSchema, ...errorResponses(400, 401, 403, 404) },
      },
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
