import type { JWK } from 'jose';
import type { Database } from '../../core/db/database.ts';
import type { AssistantAuthTables } from '../tables.ts';

export const signingAlgorithms = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof signingAlgorithms)[number];

/** A published public key: always with its kid, algorithm and use. */
export type PublishedJwk = JWK & { kty: string; kid: string; alg: SigningAlgorithm; use: 'sig' };

interface SigningKeyRow {
  kid: string;
  alg: SigningAlgorithm;
  publicJwk: PublishedJwk;
  /** The private JWK, sealed at rest under the signing-keys secret with the kid as context. */
  privateJwkSealed: string;
  activatesAt: number;
  retiresAt: number | null;
}

/** The assistant's signing keys as stored: published, current, created, retired and pruned. */
export function createSigningKeyRepository(database: Database) {
  const db = database.db.withTables<AssistantAuthTables>();
  const toRow = (row: AssistantAuthTables['assistant_signing_keys']): SigningKeyRow => ({
    kid: row.kid,
    alg: row.alg as SigningAlgorithm,
    publicJwk: JSON.parse(row.public_jwk) as PublishedJwk,
    privateJwkSealed: row.private_jwk_sealed,
    activatesAt: row.activates_at,
    retiresAt: row.retires_at,
  });
  /** Keys not yet retired at `now`. */
  const unretired = (now: number) =>
    db
      .selectFrom('assistant_signing_keys')
      .selectAll()
      .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', now)]));

  return {
    /** Keys still published at `now`: current, announced or superseded but not yet retired. */
    async published(now: number): Promise<SigningKeyRow[]> {
      const rows = await unretired(now).orderBy('activates_at').orderBy('kid').execute();
      return rows.map(toRow);
    },

    /** The key that signs with `alg` at `now`: the newest one already active. */
    async current(alg: SigningAlgorithm, now: number): Promise<SigningKeyRow | undefined> {
      const row = await unretired(now)
        .where('alg', '=', alg)
        .where('activates_at', '<=', now)
        .orderBy('activates_at', 'desc')
        .orderBy('kid', 'desc')
        .executeTakeFirst();
      return row ? toRow(row) : undefined;
    },

    async insert(row: Omit<SigningKeyRow, 'retiresAt'>, now: number): Promise<void> {
      await db
        .insertInto('assistant_signing_keys')
        .values({
          kid: row.kid,
          alg: row.alg,
          public_jwk: JSON.stringify(row.publicJwk),
          private_jwk_sealed: row.privateJwkSealed,
          created_at: now,
          activates_at: row.activatesAt,
          retires_at: null,
        })
        .execute();
    },

    /** Marks every key of `alg` that has no retirement yet to retire at `retiresAt`. */
    async scheduleRetirement(alg: SigningAlgorithm, retiresAt: number): Promise<number> {
      const result = await db
        .updateTable('assistant_signing_keys')
        .set({ retires_at: retiresAt })
        .where('alg', '=', alg)
        .where('retires_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Deletes keys retired before `now`: nothing they signed is still valid. */
    async pruneRetired(now: number): Promise<number> {
      const result = await db
        .deleteFrom('assistant_signing_keys')
        .where('retires_at', '<=', now)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type SigningKeyRepository = ReturnType<typeof createSigningKeyRepository>;
