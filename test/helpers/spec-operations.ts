/** What the service contract lists (and, for the agents server, its designed routes), for tests that check documents and pages. */

/** Every operation id of the contract's client API tables. */
export const AREA_A_OPERATION_IDS = [
  'AccountManagement_TearDownSessionsAsync',
  'AccountManagement_TearDownDeviceSessionsAsync',
  'AccountManagement_GetValidDevicesAsync',
  'AccountManagement_DeleteMediaPlayersAsync',
  'AccountManagement_GetDeviceAsync',
  'AccountManagement_DeleteMediaPlayerAsync',
  'AccountManagement_SetMediaPlayerEnabledAsync',
  'AccountManagement_GetMediaPlayerNameAsync',
  'AccountManagement_UpdateMediaPlayerNameAsync',
  'AccountManagement_GetUserHashAsync',
  'AccountManagement_GetPlayingDeviceIdsAsync',
  'AccountManagement_CheckHomeZoneSubscriptionAsync',
  'AccountManagement_GetUserByEmailAsync',
  'AccountManagement_GetUsersByEmailAsync',
  'AccountManagement_RequestSendEmailAsync',
  'AccountManagement_SetUserRatingAsync',
  'AccountManagement_PostByDeviceClassContentsByModuleByContentIdRatingsByRating',
  'AccountManagement_AddContactAsync',
  'AccountManagement_UpgradeUserAsync',
  'Ad_GetContentAdInfoAsync',
  'Authentication_GetTokensAsync',
  'Authentication_GetUserAsync',
  'Authentication_BasicAuthenticateUserAsync',
  'Authentication_HeadAuthByDeviceClassUsersAuthenticate',
  'Authentication_AuthenticateUserAsync',
  'Bookmarks_GetBookmarkAsync',
  'Bookmarks_AddBookmarkAsync',
];

/** The contract's assistant-auth table has no operation ids: every (method, path) of it must be on the page. */
export const AREA_B_OPERATIONS = [
  'GET /users/assistant-id',
  'GET /users/assistant-id/{assistantId}',
  'GET /users/assistantid/integrated',
  'DELETE /admin/users/phone-numbers/{phone_number}',
  'GET /users/assistantid/integrated/logout',
  'DELETE /users/{assistantId}',
  'GET /users/{assistantId}',
  'GET /users/assistant-id-global/{assistant_id_global}',
  'GET /token',
  'GET /token/wss',
  'GET /openid/issuer/.well-known/openid-configuration',
  'GET /openid/jwk',
  'GET /healthz',
  'GET /ping',
  'GET /config',
  'GET /metrics',
];

/** The agents server's routes. */
export const AREA_C_OPERATIONS = [
  'GET /agents',
  'GET /agents/{name}',
  'POST /agents/{name}/invoke',
  'POST /agents/{name}/stream',
];
