import { sql } from 'kysely';
import type { Config } from '../../core/config.ts';
import type { RetentionRule } from '../../core/db/retention.ts';

/**
 * Expired assistant users go ASSISTANT_USER_RETENTION after they expired (GET /users/{id} answers 410
 * meanwhile), in the retention job's batches, through the index on `expires_at`. A retention of 0 means
 * right after they expire (not "kept forever", as 0 means for the rules that keep rows from a start): the
 * rule then keeps them one second.
 */
export function expiredUsersRule(config: Pick<Config, 'ASSISTANT_USER_RETENTION'>): RetentionRule {
  return {
    name: 'assistant_users (expired)',
    table: 'assistant_users',
    key: ['assistant_id'],
    keepSeconds: Math.max(1, config.ASSISTANT_USER_RETENTION),
    column: 'expires_at',
    expired: (cutoff) => sql`${sql.ref('expires_at')} < ${cutoff}`,
  };
}
