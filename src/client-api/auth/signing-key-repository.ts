import type { Database } from '../../core/db/database.ts';
import type { AccountTables } from '../tables.ts';

export type DeviceSigningKeyRow = AccountTables['device_signing_keys'];

/** The device-token signing keys: public halves as JWKs, private halves sealed by the caller. */
export function createSigningKeyRepository(database: Database) {
  const db = database.db.withTables<AccountTables>();
  return {
    /** Every key, oldest first: the oldest signs, so every process on the store signs with the same one. */
    all(): Promise<DeviceSigningKeyRow[]> {
      return db.selectFrom('device_signing_keys').selectAll().orderBy('created_at').orderBy('kid').execute();
    },
    /** Adds a key unless its kid exists (two processes creating the first key at once). */
    async insert(row: DeviceSigningKeyRow): Promise<void> {
      await db
        .insertInto('device_signing_keys')
        .values(row)
        .onConflict((conflict) => conflict.column('kid').doNothing())
        .execute();
    },
  };
}

export type SigningKeyRepository = ReturnType<typeof createSigningKeyRepository>;
