import type { Database } from '../../core/db/database.ts';
import type { AccountTables } from '../tables.ts';

export interface UserRecord {
  platformUserId: string;
  accountNumber: string;
  email: string;
  userHash: string;
  profiles: string[];
  subscriptions: string[];
  createdAt: number;
}

export interface UserWithPassword extends UserRecord {
  passwordHash: string;
}

const parseList = (text: string): string[] => {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.map(String) : [];
};

export function createUserRepository(database: Database) {
  const db = database.db.withTables<AccountTables>();
  const joined = () =>
    db
      .selectFrom('users')
      .innerJoin('accounts', 'accounts.account_number', 'users.account_number')
      .select([
        'users.platform_user_id',
        'users.account_number',
        'users.email',
        'users.password_hash',
        'users.profiles',
        'users.subscriptions',
        'users.created_at',
        'accounts.user_hash',
      ]);
  type Row = Awaited<ReturnType<ReturnType<typeof joined>['executeTakeFirstOrThrow']>>;
  const toRecord = (row: Row): UserWithPassword => ({
    platformUserId: row.platform_user_id,
    accountNumber: row.account_number,
    email: row.email,
    userHash: row.user_hash,
    profiles: parseList(row.profiles),
    subscriptions: parseList(row.subscriptions),
    createdAt: row.created_at,
    passwordHash: row.password_hash,
  });

  return {
    /** False when the account already has a user with this e-mail. */
    async insert(row: AccountTables['users']): Promise<boolean> {
      const result = await db
        .insertInto('users')
        .values(row)
        .onConflict((conflict) => conflict.columns(['account_number', 'email']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    /** Every user with this e-mail, oldest first (an e-mail is unique within one account only). */
    async findByEmail(email: string): Promise<UserWithPassword[]> {
      const rows = await joined()
        .where('users.email', '=', email.toLowerCase())
        .orderBy('users.created_at')
        .orderBy('users.platform_user_id')
        .execute();
      return rows.map(toRecord);
    },

    async findByPlatformUserId(platformUserId: string): Promise<UserWithPassword | undefined> {
      const row = await joined().where('users.platform_user_id', '=', platformUserId).executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },

    /** The users of the account that owns this userHash, oldest first. */
    async findByUserHash(userHash: string): Promise<UserWithPassword[]> {
      const rows = await joined()
        .where('accounts.user_hash', '=', userHash)
        .orderBy('users.created_at')
        .orderBy('users.platform_user_id')
        .execute();
      return rows.map(toRecord);
    },

    async setSubscriptions(platformUserId: string, subscriptions: string[]): Promise<void> {
      await db
        .updateTable('users')
        .set({ subscriptions: JSON.stringify(subscriptions) })
        .where('platform_user_id', '=', platformUserId)
        .execute();
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;

/** A user record without its password hash: what may leave the service. */
export function publicUser(user: UserWithPassword | UserRecord): UserRecord {
  return {
    platformUserId: user.platformUserId,
    accountNumber: user.accountNumber,
    email: user.email,
    userHash: user.userHash,
    profiles: user.profiles,
    subscriptions: user.subscriptions,
    createdAt: user.createdAt,
  };
}
