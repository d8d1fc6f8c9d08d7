import {
  bigint,
  integer,
  nullable,
  type SchemaColumns,
  type TableTypes,
  text,
} from '../core/db/table-columns.ts';
import type { AdBreak } from './ad-info/schemas.ts';

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
    /** Streams the account may play at once, set by an operator; null: PLAYBACK_STREAM_LIMIT. */
    stream_limit: nullable(integer()),
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
    /**
     * The device's stream (one at a time, migration 20261128110000_playback-streams): what it plays, where,
     * since when, and its last report. Live while stream_reported_at is within PLAYBACK_STALE_AFTER.
     */
    stream_content_id: nullable(bigint()),
    stream_offset: nullable(integer()),
    stream_since: nullable(bigint()),
    stream_reported_at: nullable(bigint()),
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

/**
 * The client API's content tables (migration 20261122082000_client-content): bookmarks, ratings, the
 * mail outbox and registration requests, advertising contacts, subscriptions and ad breaks. Times are
 * epoch milliseconds; booleans 0/1. Each repository takes its tables' types from here.
 */
export const clientContentColumns = {
  bookmarks: {
    user_hash: text(),
    content_id: bigint(),
    account_number: nullable(text()),
    version: nullable(text()),
    offset_seconds: integer(),
    position_at: bigint(),
    device_id: text(),
    device_class: text(),
    updated_at: bigint(),
  },
  ratings: {
    module: text(),
    content_id: bigint(),
    user_id: text(),
    account_number: nullable(text()),
    rating: integer(),
    updated_at: bigint(),
  },
  rate_limit_counters: {
    bucket: text(),
    window_start: bigint(),
    hits: integer(),
  },
  mail_outbox: {
    id: text(),
    kind: text(),
    /** The message (recipient, subject, text) sealed with AES-256-GCM: addresses are personal data. */
    sealed_message: text(),
    status: text<'pending' | 'sent' | 'failed'>(),
    attempts: integer(),
    next_attempt_at: bigint(),
    /** A worker's claim; an expired claim (a crashed worker) makes the message due again. */
    locked_until: nullable(bigint()),
    created_at: bigint(),
    sent_at: nullable(bigint()),
    last_error: nullable(text()),
  },
  registration_requests: {
    id: text(),
    device_class: text(),
    email_hash: text(),
    outbox_id: text(),
    created_at: bigint(),
  },
  ad_contacts: {
    id: text(),
    account_number: text(),
    device_class: text(),
    campaign: text(),
    media_player_id: nullable(text()),
    created_at: bigint(),
  },
  subscriptions: {
    platform_user_id: text(),
    cod_persona: text(),
    cod_oferta: text(),
    account_number: text(),
    product: text(),
    enabled: integer(),
    enabled_at: bigint(),
    updated_at: bigint(),
  },
  ad_breaks: {
    contents: text(),
    content_id: text(),
    position: text<AdBreak['position']>(),
    offset_seconds: integer(),
    max_ads: integer(),
  },
} as const satisfies SchemaColumns;

export type ClientContentTables = TableTypes<typeof clientContentColumns>;
