import type { Database } from '../../core/db/database.ts';
import type { AccountTables } from '../tables.ts';

export interface AccountRecord {
  accountNumber: string;
  userHash: string;
  createdAt: number;
}

const toRecord = (row: AccountTables['accounts']): AccountRecord => ({
  accountNumber: row.account_number,
  userHash: row.user_hash,
  createdAt: row.created_at,
});

export function createAccountRepository(database: Database) {
  const db = database.db.withTables<AccountTables>();
  return {
    /** False when the account number is taken. A new account has the default stream limit. */
    async insert(row: Omit<AccountTables['accounts'], 'stream_limit'>): Promise<boolean> {
      const result = await db
        .insertInto('accounts')
        .values(row)
        .onConflict((conflict) => conflict.column('account_number').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async find(accountNumber: string): Promise<AccountRecord | undefined> {
      const row = await db
        .selectFrom('accounts')
        .selectAll()
        .where('account_number', '=', accountNumber)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },

    /** The account a userHash belongs to (bookmarks address users by it). */
    async findByUserHash(userHash: string): Promise<AccountRecord | undefined> {
      const row = await db
        .selectFrom('accounts')
        .selectAll()
        .where('user_hash', '=', userHash)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
  };
}

export type AccountRepository = ReturnType<typeof createAccountRepository>;
