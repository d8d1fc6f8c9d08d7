/**
 * The tables of accounts, users, devices, sessions and device signing keys (migration
 * 20261122081000_client-accounts). Times are epoch milliseconds; booleans 0/1.
 */
export type AccountTables = {
  accounts: {
    account_number: string;
    /** Random code of the account, never shown; userHash is derived from it. */
    user_code: string;
    user_hash: string;
    created_at: number;
  };
  users: {
    platform_user_id: string;
    account_number: string;
    /** Lower-cased. */
    email: string;
    /** `scrypt$N$r$p$salt$hash`, base64url parts. */
    password_hash: string;
    /** JSON array of profile names. */
    profiles: string;
    /** JSON array of subscription codes. */
    subscriptions: string;
    created_at: number;
  };
  devices: {
    account_number: string;
    device_id: string;
    name: string;
    device_class: string;
    enabled: number;
    registered_at: number;
    /** Last (re)activation: the delete cool-down counts from here. */
    activated_at: number;
    last_seen_at: number;
    /** Last bookmark save from this device (playing within PLAYING_WINDOW). */
    last_playback_at: number | null;
  };
  sessions: {
    id: string;
    account_number: string;
    device_id: string;
    device_class: string;
    platform_user_id: string;
    qsp_version: string;
    /** SHA-256 of the current refresh token's secret (rotated on every use). */
    refresh_hash: string;
    refresh_expires_at: number;
    tier: string | null;
    scope: string | null;
    user_profile: number | null;
    created_at: number;
    last_used_at: number;
    closed_at: number | null;
  };
  device_signing_keys: {
    kid: string;
    public_jwk: string;
    private_jwk_sealed: string;
    created_at: number;
  };
};
