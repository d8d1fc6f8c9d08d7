import type { App } from '../../core/http/service-app.ts';
import { noContent } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { playbackErrors } from './errors.ts';
import {
  accountParams,
  STREAM_LIMIT_MAX,
  startedStreamSchema,
  streamLimitParams,
  streamLimitSchema,
  streamStartParams,
  streamStartQuery,
  streamStopParams,
  watchingSchema,
} from './schemas.ts';

const tag = 'playback';

export function playbackRoutes(app: App, { access, playback }: Pick<ClientApi, 'access' | 'playback'>): void {
  app.put(
    '/:deviceClass/:deviceId/users/:userHash/playback/:contentId',
    access.route(
      {
        id: 'Playback_StartStreamAsync',
        description:
          "The device starts or goes on playing the content item at `offset`: its stream, one per device (another content item replaces it), counts against the account's stream limit until it stops or goes PLAYBACK_STALE_AFTER seconds without a report. A report is this call again or a bookmark save by the device. A device whose stream is not live yet, while the account plays its limit on other devices, is refused 409 STREAM_LIMIT_REACHED; the check is made at every start and report, across processes.",
        code: 'START_PLAYBACK',
        summary:
          "Starts or reports the device's stream; 409 STREAM_LIMIT_REACHED when the account plays its limit on other devices.",
        tag,
        security: 'person',
        owner: 'userHash',
        errors: [
          playbackErrors.STREAM_LIMIT_REACHED,
          authenticationErrors.DEVICE_MISMATCH,
          deviceErrors.DEVICE_NOT_FOUND,
        ],
      },
      {
        params: streamStartParams,
        querystring: streamStartQuery,
        response: { 200: startedStreamSchema },
      },
    ),
    async ({ params, query, principal }) =>
      playback.report(principal, {
        deviceClass: params.deviceClass,
        deviceId: params.deviceId,
        contentId: params.contentId,
        offset: query.offset,
      }),
  );

  app.delete(
    '/:deviceClass/:deviceId/users/:userHash/playback',
    access.route(
      {
        id: 'Playback_StopStreamAsync',
        description:
          "The device stopped playing: its stream is over and no longer counts against the account's limit. 204 whether or not it had one.",
        code: 'STOP_PLAYBACK',
        summary: "Ends the device's stream (idempotent).",
        tag,
        security: 'person',
        owner: 'userHash',
        errors: [authenticationErrors.DEVICE_MISMATCH],
      },
      { params: streamStopParams, response: { 204: { type: 'null', description: 'Stopped.' } } },
    ),
    async ({ params, principal }, reply) => noContent(reply, playback.end(principal, params)),
  );

  app.get(
    '/accounts/:accountNumber/playback',
    access.route(
      {
        id: 'Playback_GetPlaybackAsync',
        description:
          "Who is watching: the account's live streams (device, its name and class, content, position, since when, last report), the earliest started first, and the account's stream limit. A stream without a report for PLAYBACK_STALE_AFTER seconds is over and not shown. 404 for an unknown account.",
        code: 'GET_PLAYBACK',
        summary: "The account's live streams and its stream limit.",
        tag,
        security: 'deviceOrOperator',
        owner: 'accountNumber',
        delegated: 'playback:read',
        errors: [accountErrors.ACCOUNT_NOT_FOUND],
      },
      { params: accountParams, response: { 200: watchingSchema } },
    ),
    async ({ params }) => playback.watching(params.accountNumber),
  );

  app.put(
    '/accounts/:accountNumber/stream-limit/:limit',
    access.route(
      {
        id: 'Playback_SetStreamLimitAsync',
        description: `Sets how many streams the account may play at once (0-${STREAM_LIMIT_MAX}), in place of PLAYBACK_STREAM_LIMIT. Streams already playing go on; a start past the new limit is refused. 404 for an unknown account.`,
        code: 'SET_STREAM_LIMIT',
        summary: "Sets the account's stream limit.",
        tag,
        security: 'operator',
        errors: [accountErrors.ACCOUNT_NOT_FOUND],
      },
      { params: streamLimitParams, response: { 200: streamLimitSchema } },
    ),
    async ({ params }) => playback.setLimit(params.accountNumber, params.limit),
  );
}
