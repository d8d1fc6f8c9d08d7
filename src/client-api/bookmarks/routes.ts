import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { contentErrors } from '../content-errors.ts';
import type { ClientApiDeps } from '../deps.ts';
import { operation } from '../openapi.ts';
import { createBookmarkRepository } from './repository.ts';
import {
  bookmarkReadParams,
  bookmarkReadQuery,
  bookmarkSaveParams,
  bookmarkSaveQuery,
  bookmarkSchema,
} from './schemas.ts';
import { createBookmarkService } from './service.ts';

const tag = 'bookmarks';

export function registerBookmarkRoutes(app: App, deps: ClientApiDeps): void {
  const { guards, repositories } = deps;
  const bookmarks = createBookmarkService(
    createBookmarkRepository(deps.core.database),
    (account, device, at) => repositories.devices.markPlaying(account, device, at),
  );
  // Access is checked after validation, so a malformed path is 400 whoever calls.
  const access = { onRequest: [guards.authenticate], preHandler: [guards.requireUserHash('userHash')] };

  app.get(
    '/:deviceClass/users/:userHash/bookmarks/:contentId',
    {
      ...access,
      schema: {
        ...operation({
          id: 'Bookmarks_GetBookmarkAsync',
          errors: { 404: ['BOOKMARK_NOT_FOUND'] },
          code: 'GET_BOOKMARK',
          summary:
            'Last playback position (seconds) of a content item for the user; accountNumber and version narrow it.',
          tag,
          security: 'deviceOrOperator',
        }),
        params: bookmarkReadParams,
        querystring: bookmarkReadQuery,
        response: { 200: bookmarkSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      bookmarks.read({
        userHash: request.params.userHash,
        contentId: request.params.contentId,
        accountNumber: request.query.accountNumber,
        version: request.query.version,
      }),
  );

  app.post(
    '/:deviceClass/:deviceId/users/:userHash/bookmarks/:contentId/:offset',
    {
      ...access,
      schema: {
        ...operation({
          id: 'Bookmarks_AddBookmarkAsync',
          errors: { 400: ['BOOKMARK_TIME_IN_FUTURE'], 403: ['DEVICE_MISMATCH'], 404: ['USER_NOT_FOUND'] },
          code: 'SAVE_BOOKMARK',
          summary:
            'Saves the last playback position and answers the stored bookmark; with `at`, a save older than the stored one changes nothing (applied=false).',
          tag,
          security: 'deviceOrOperator',
        }),
        params: bookmarkSaveParams,
        querystring: bookmarkSaveQuery,
        response: { 200: bookmarkSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { params, query, principal } = request;
      let accountNumber: string;
      if (principal?.kind === 'device') {
        if (principal.deviceId !== params.deviceId) {
          throw contentErrors.DEVICE_MISMATCH('A device saves bookmarks under its own deviceId only.');
        }
        accountNumber = principal.accountNumber;
      } else {
        const account = await repositories.accounts.findByUserHash(params.userHash);
        if (!account) throw contentErrors.USER_NOT_FOUND('No account has this userHash.');
        accountNumber = account.accountNumber;
      }
      return bookmarks.save({
        userHash: params.userHash,
        contentId: params.contentId,
        offset: params.offset,
        deviceId: params.deviceId,
        deviceClass: params.deviceClass,
        accountNumber,
        version: query.version ?? null,
        at: query.at === undefined ? undefined : Date.parse(query.at),
      });
    },
  );
}
