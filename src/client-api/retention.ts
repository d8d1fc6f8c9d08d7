import { sql } from 'kysely';
import type { Config } from '../core/config.ts';
import type { RetentionRule } from '../core/db/retention.ts';

/**
 * The client API's tables that only grow and the rule that bounds each (docs/retention.md). Each condition
 * is backed by an index of migration 20261125110000_retention-indexes (20261128110001_device-commands for the commands).
 */
export function clientApiRetentionRules(
  config: Pick<
    Config,
    | 'SESSION_RETENTION'
    | 'OUTBOX_RETENTION'
    | 'REGISTRATION_RETENTION'
    | 'AD_CONTACT_RETENTION'
    | 'DEVICE_GRANT_TTL'
    | 'COMMAND_RETENTION'
  >,
): RetentionRule[] {
  const ref = sql.ref;
  return [
    {
      name: 'sessions (closed)',
      table: 'sessions',
      key: ['id'],
      keepSeconds: config.SESSION_RETENTION,
      column: 'closed_at',
      expired: (cutoff) => sql`${ref('closed_at')} < ${cutoff}`,
    },
    {
      // An idle session is refreshed no more, so its refresh token expires too: this rule covers it.
      name: 'sessions (refresh expired)',
      table: 'sessions',
      key: ['id'],
      keepSeconds: config.SESSION_RETENTION,
      column: 'refresh_expires_at',
      expired: (cutoff) => sql`${ref('refresh_expires_at')} < ${cutoff}`,
    },
    {
      name: 'mail_outbox (sent or failed)',
      table: 'mail_outbox',
      key: ['id'],
      keepSeconds: config.OUTBOX_RETENTION,
      column: 'created_at',
      expired: (cutoff) => sql`${ref('created_at')} < ${cutoff} and ${ref('status')} <> 'pending'`,
    },
    {
      name: 'registration_requests',
      table: 'registration_requests',
      key: ['id'],
      keepSeconds: config.REGISTRATION_RETENTION,
      column: 'created_at',
      expired: (cutoff) => sql`${ref('created_at')} < ${cutoff}`,
    },
    {
      // Kept a lifetime past expiry, so that a late poll is still told expired_token, not invalid_grant; every
      // read of a grant also checks its expiry, so when the pass comes does not matter.
      name: 'device_grants (expired)',
      table: 'device_grants',
      key: ['id'],
      keepSeconds: config.DEVICE_GRANT_TTL,
      column: 'expires_at',
      expired: (cutoff) => sql`${ref('expires_at')} < ${cutoff}`,
    },
    {
      name: 'device_commands',
      table: 'device_commands',
      key: ['id'],
      keepSeconds: config.COMMAND_RETENTION,
      column: 'created_at',
      expired: (cutoff) => sql`${ref('created_at')} < ${cutoff}`,
    },
    {
      name: 'ad_contacts',
      table: 'ad_contacts',
      key: ['id'],
      keepSeconds: config.AD_CONTACT_RETENTION,
      column: 'created_at',
      expired: (cutoff) => sql`${ref('created_at')} < ${cutoff}`,
    },
  ];
}
