import { bigint, integer, type SchemaColumns, type TableTypes, text } from '../../core/db/table-columns.ts';

/** Failed sign-ins per user name and per client address (migration 20261123090000_login-throttle). */
export const loginThrottleColumns = {
  login_failures: {
    /** `user:` or `address:` and a keyed hash: neither user names nor addresses are stored. */
    bucket: text(),
    /** Attempts counted in the window: failures, and attempts still being checked. */
    failures: integer(),
    /** Epoch milliseconds of the window's first failure; the window frees itself whole at its end. */
    window_start: bigint(),
  },
} as const satisfies SchemaColumns;

export type LoginThrottleTables = TableTypes<typeof loginThrottleColumns>;
