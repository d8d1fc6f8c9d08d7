import type { Database } from '../../core/db/database.ts';
import type { AgentTables } from '../tables.ts';

export type ConfirmationRow = AgentTables['agent_confirmations'];

/** The confirmation requests in the store; what they mean and when they run is confirmations.ts's rule. */
export function createConfirmationRepository(database: Database) {
  const db = database.db.withTables<AgentTables>();
  const settleUnsettled = async (column: 'id' | 'owner_hash', value: string, at: number) => {
    const result = await db
      .updateTable('agent_confirmations')
      .set({ settled_at: at })
      .where(column, '=', value)
      .where('settled_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  };
  return {
    async insert(row: ConfirmationRow): Promise<void> {
      await db.insertInto('agent_confirmations').values(row).execute();
    },

    /** The newest unsettled request of an owner, expired or not. */
    async newestUnsettled(ownerHash: string): Promise<ConfirmationRow | undefined> {
      return db
        .selectFrom('agent_confirmations')
        .selectAll()
        .where('owner_hash', '=', ownerHash)
        .where('settled_at', 'is', null)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
    },

    /** Settles one request if nothing settled it first; answers whether this call did. */
    async settle(id: string, at: number): Promise<boolean> {
      return (await settleUnsettled('id', id, at)) === 1;
    },

    /** Settles every unsettled request of an owner; answers how many there were. */
    settleAll(ownerHash: string, at: number): Promise<number> {
      return settleUnsettled('owner_hash', ownerHash, at);
    },

    /** Removes the requests that expired before `before`. */
    async removeExpiredBefore(before: number): Promise<void> {
      await db.deleteFrom('agent_confirmations').where('expires_at', '<', before).execute();
    },
  };
}

export type ConfirmationRepository = ReturnType<typeof createConfirmationRepository>;
