import type { App } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { ClientApi } from '../composition.ts';
import { userErrors } from '../users/errors.ts';
import { bookmarkErrors } from './errors.ts';
import {
  bookmarkReadParams,
  bookmarkReadQuery,
  bookmarkSaveParams,
  bookmarkSaveQuery,
  bookmarkSchema,
  recentBookmarksParams,
  recentBookmarksQuery,
  recentBookmarksSchema,
} from './schemas.ts';

const tag = 'bookmarks';

export function bookmarkRoutes(
  app: App,
  { access, bookmarks }: Pick<ClientApi, 'access' | 'bookmarks'>,
): void {
  app.get(
    '/accounts/:accountNumber/bookmarks',
    access.route(
      {
        id: 'Bookmarks_GetRecentBookmarksAsync',
        description:
          "Lists the bookmarks of the account's user, the most recently saved first (a continue-watching row), at most `limit`; with `contentId`, only that content item's bookmark. 404 for an unknown account.",
        code: 'GET_RECENT_BOOKMARKS',
        summary:
          "The account user's bookmarks, the most recent position first (continue watching); with contentId, that content item's only.",
        tag,
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'bookmarks:read',
        errors: [accountErrors.ACCOUNT_NOT_FOUND],
      },
      {
        params: recentBookmarksParams,
        querystring: recentBookmarksQuery,
        response: { 200: recentBookmarksSchema },
      },
    ),
    async ({ params, query }) => bookmarks.recent(params.accountNumber, query.limit, query.contentId),
  );

  app.get(
    '/:deviceClass/users/:userHash/bookmarks/:contentId',
    access.route(
      {
        id: 'Bookmarks_GetBookmarkAsync',
        description:
          'Answers the last playback position, in seconds, that the user saved for the content item: the newest save wins whatever device made it. `accountNumber` and `version` narrow which user and bookmark version are read. 404 when there is none.',
        code: 'GET_BOOKMARK',
        summary:
          'Last playback position (seconds) of a content item for the user; accountNumber and version narrow it.',
        tag,
        security: 'deviceOrOperator',
        owner: 'userHash',
        errors: [bookmarkErrors.BOOKMARK_NOT_FOUND],
      },
      {
        params: bookmarkReadParams,
        querystring: bookmarkReadQuery,
        response: { 200: bookmarkSchema },
      },
    ),
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
    access.route(
      {
        id: 'Bookmarks_AddBookmarkAsync',
        description:
          "Stores `offset` (seconds) as the user's position in the content item and answers the stored bookmark. With `at`, the time the position was reached on the device, a save older than the stored bookmark leaves it as it is and answers `applied: false`, so saves arriving out of order never move the position back.",
        code: 'SAVE_BOOKMARK',
        summary:
          'Saves the last playback position and answers the stored bookmark; with `at`, a save older than the stored one changes nothing (applied=false).',
        tag,
        security: 'deviceOrOperator',
        owner: 'userHash',
        errors: [
          bookmarkErrors.BOOKMARK_TIME_IN_FUTURE,
          authenticationErrors.DEVICE_MISMATCH,
          userErrors.USER_NOT_FOUND,
        ],
      },
      {
        params: bookmarkSaveParams,
        querystring: bookmarkSaveQuery,
        response: { 200: bookmarkSchema },
      },
    ),
    async ({ params, query, principal }) =>
      bookmarks.save(principal, {
        userHash: params.userHash,
        contentId: params.contentId,
        offset: params.offset,
        deviceId: params.deviceId,
        deviceClass: params.deviceClass,
        version: query.version ?? null,
        at: query.at === undefined ? undefined : Date.parse(query.at),
      }),
  );
}
