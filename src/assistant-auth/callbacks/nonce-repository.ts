import type { Database } from '../../core/db/database.ts';
import type { AssistantAuthTables } from '../tables.ts';

/** The nonces of spent callback parameters, kept in the database so every process refuses a replay. */
export function createCallbackNonceRepository(database: Database) {
  const db = database.db.withTables<AssistantAuthTables>();
  return {
    /** Forgets nonces whose parameter expired by `now`: an expired parameter is refused anyway. */
    async forgetExpired(now: number): Promise<void> {
      await db.deleteFrom('assistant_callback_nonces').where('expires_at', '<=', now).execute();
    },

    /** Records a nonce as spent; false when it was spent already. */
    async spend(nonceHash: string, expiresAt: number): Promise<boolean> {
      const inserted = await db
        .insertInto('assistant_callback_nonces')
        .values({ nonce_hash: nonceHash, expires_at: expiresAt })
        .onConflict((conflict) => conflict.column('nonce_hash').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    /** Unspends a nonce whose callback failed on our side, so its retry is served. */
    async giveBack(nonceHash: string): Promise<void> {
      await db.deleteFrom('assistant_callback_nonces').where('nonce_hash', '=', nonceHash).execute();
    },
  };
}

export type CallbackNonceRepository = ReturnType<typeof createCallbackNonceRepository>;
