import type { Database } from '../../core/db/database.ts';
import type { AccountTables, ClientContentTables } from '../tables.ts';

export type SubscriptionTables = Pick<ClientContentTables, 'subscriptions'> & {
  /** Read here only: the offers an operator gave the user at creation (`users.subscriptions`). */
  users: Pick<AccountTables['users'], 'platform_user_id' | 'account_number' | 'subscriptions'>;
};

export type SubscriptionRow = SubscriptionTables['subscriptions'];

export function createSubscriptionRepository(database: Database) {
  const db = database.db.withTables<SubscriptionTables>();
  return {
    /** Enables the offer; one that was enabled already keeps its first enabled_at. */
    async enable(row: SubscriptionRow): Promise<SubscriptionRow> {
      return db
        .insertInto('subscriptions')
        .values(row)
        .onConflict((conflict) =>
          conflict.columns(['platform_user_id', 'cod_persona', 'cod_oferta']).doUpdateSet((eb) => ({
            enabled: 1,
            account_number: row.account_number,
            updated_at: row.updated_at,
            enabled_at: eb
              .case()
              .when('subscriptions.enabled', '=', 1)
              .then(eb.ref('subscriptions.enabled_at'))
              .else(row.enabled_at)
              .end(),
          })),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** Whether any user of the account holds one of the offers, in this table or in their user record. */
    async accountHoldsOffer(accountNumber: string, offers: readonly string[]): Promise<boolean> {
      const enabled = await db
        .selectFrom('subscriptions')
        .select('platform_user_id')
        .where('account_number', '=', accountNumber)
        .where('cod_oferta', 'in', offers)
        .where('enabled', '=', 1)
        .limit(1)
        .executeTakeFirst();
      if (enabled) return true;
      const users = await db
        .selectFrom('users')
        .select('subscriptions')
        .where('account_number', '=', accountNumber)
        .execute();
      return users.some((user) => parseList(user.subscriptions).some((offer) => offers.includes(offer)));
    },
  };
}

function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

export type SubscriptionRepository = ReturnType<typeof createSubscriptionRepository>;
