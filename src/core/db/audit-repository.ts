import type { Kysely, Transaction } from 'kysely';
import type { CoreTables } from './tables.ts';

export type AuditRow = CoreTables['audit_log'];

/**
 * The audit log, append only; what an entry may hold (no personal data) is Core.audit's rule. Runs on
 * the store's connection, or inside `trx` so an action and its record commit together.
 */
export function createAuditRepository(db: Kysely<CoreTables>) {
  return {
    async append(row: AuditRow, trx?: Transaction<CoreTables>): Promise<void> {
      await (trx ?? db).insertInto('audit_log').values(row).execute();
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
