import {
  bigint,
  integer,
  nullable,
  type SchemaColumns,
  type TableTypes,
  text,
} from '../../core/db/table-columns.ts';

/**
 * The tables of accounts, users, devices, sessions and device signing keys (migration
 * 20261122081000_client-accounts). Times are epoch milliseconds; booleans 0/1.
 */
export const accountColumns = {
  accounts: {
    account_number: text(),
    /** Random code of the account, never shown; userHash is derived from it. */
    user_code: text(),
    user_hash: text(),
    created_at: bigint(),
  },
  users: {
    platform_user_id: text(),
    account_number: text(),
    /** Lower-cased. */
    email: text(),
    /** `scrypt$N$r$p$salt$hash`, base64url parts. */
    password_hash: text(),
    /** JSON array of profile names. */
    profiles: text(),
    /** JSON array of subscription codes. */
    subscriptions: text(),
    created_at: bigint(),
  },
  devices: {
    account_number: text(),
    device_id: text(),
    name: text(),
    device_class: text(),
    enabled: integer(),
    registered_at: bigint(),
    /** Last (re)activation: the delete cool-down counts from here. */
    activated_at: bigint(),
    last_seen_at: bigint(),
    /** Last bookmark save from this device (playing within PLAYING_WINDOW). */
    last_playback_at: nullable(bigint()),
  },
  sessions: {
    id: text(),
    account_number: text(),
    device_id: text(),
    device_class: text(),
    platform_user_id: text(),
    qsp_version: text(),
    /** SHA-256 of the current refresh token's secret (rotated on every use). */
    refresh_hash: text(),
    refresh_expires_at: bigint(),
    tier: nullable(text()),
    scope: nullable(text()),
    user_profile: nullable(integer()),
    created_at: bigint(),
    last_used_at: bigint(),
    closed_at: nullable(bigint()),
  },
  device_signing_keys: {
    kid: text(),
    public_jwk: text(),
    private_jwk_sealed: text(),
    created_at: bigint(),
  },
} as const satisfies SchemaColumns;

export type AccountTables = TableTypes<typeof accountColumns>;
