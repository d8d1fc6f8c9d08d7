/**
 * The contract of delegated calls (the assistant acting for its linked pay-TV user): assistant-auth
 * signs these tokens, client-api verifies them against the assistant's published keys. Both services
 * build on this module; neither imports the other.
 */

/** The `aud` of a token the assistant signs for the client API. */
export const CLIENT_API_AUDIENCE = 'sintonia-client-api';

/** A delegation lives at most this long, whatever is configured. */
export const MAX_DELEGATION_TTL_SECONDS = 300;

/**
 * The acting party of assistant-auth's own calls about a sign-in's session (whether it is open; closing it
 * at the chat page's sign-out): no API key obtained its token, so it is the one actor client-api accepts
 * without a live runtime key behind it.
 */
export const SIGN_IN_CHECK_ACTOR = 'assistant-auth:sign-in-check';

/** What a delegated token may do on its account, one scope per kind of action. */
export const delegationScopes = [
  /** List the account's devices and what each is playing. */
  'devices:read',
  /** Rename, enable or disable a device. */
  'devices:write',
  /**
   * Close a device's sessions (sign it out), every session of the account (sign out everywhere), or the one
   * session the token rests on (the chat page's sign-out).
   */
  'sessions:write',
  /** Read the account user's playback positions (continue watching, where was I). */
  'bookmarks:read',
  /** Approve or refuse a TV's sign-in with a code (the device authorization grant). */
  'devices:pair',
  /** See who is watching: the account's streams now and its stream limit. */
  'playback:read',
  /** Tell a device of the account to stop, pause, resume or play, and read how far a command got. */
  'devices:control',
] as const;
export type DelegationScope = (typeof delegationScopes)[number];

/** The claims of a delegated token beyond `iss`, `aud`, `iat`, `exp` and `jti`. */
export interface DelegationClaims {
  /** The assistantId the assistant acts for. */
  sub: string;
  /** The pay-TV account linked to that assistant user. */
  acc: string;
  /** Space-separated scopes (RFC 8693 style). */
  scope: string;
  /** The acting party: the assistant runtime, by the id of the key that asked. */
  act: { sub: string };
  /**
   * The client API session the link rests on (the chat page's sign-in): the token is refused once that
   * session is closed. Absent for a link the gateway made.
   */
  sid?: string;
}

/** A pay-TV account number: 1–48 letters, digits, `-`, `_` and `.` (it appears in client API paths). */
export const ACCOUNT_NUMBER_PATTERN = '^[A-Za-z0-9._-]{1,48}$';
