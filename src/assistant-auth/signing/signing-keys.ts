import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Core } from '../../core/core.ts';
import { encrypt, parseKey } from '../../core/secrets.ts';
import type { AssistantAuthTables } from '../tables.ts';

export const signingAlgorithms = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof signingAlgorithms)[number];

/** The longest lifetime the signer gives a token; a superseded key stays published this long. */
export const MAX_SIGNED_TTL_SECONDS = 86_400;

/** A published public key: always with its kid, algorithm and use. */
export type PublishedJwk = JWK & { kty: string; kid: string; alg: SigningAlgorithm; use: 'sig' };

export interface SigningKeyRow {
  kid: string;
  alg: SigningAlgorithm;
  publicJwk: PublishedJwk;
  privateJwkSealed: string;
  activatesAt: number;
  retiresAt: number | null;
}

/** The key that seals private keys at rest: SIGNING_KEYS_SECRET, else one derived from the master key. */
export function signingKeysSecret(core: Core): Buffer {
  const configured = core.config.SIGNING_KEYS_SECRET;
  return configured ? parseKey(configured) : core.key('signing-keys');
}

export function signingKeyRepository(core: Core) {
  const db = core.database.db.withTables<AssistantAuthTables>();
  const toRow = (row: AssistantAuthTables['assistant_signing_keys']): SigningKeyRow => ({
    kid: row.kid,
    alg: row.alg as SigningAlgorithm,
    publicJwk: JSON.parse(row.public_jwk) as PublishedJwk,
    privateJwkSealed: row.private_jwk_sealed,
    activatesAt: row.activates_at,
    retiresAt: row.retires_at,
  });

  return {
    /** Keys still published at `now`: current, announced or superseded but not yet retired. */
    async published(now: number): Promise<SigningKeyRow[]> {
      const rows = await db
        .selectFrom('assistant_signing_keys')
        .selectAll()
        .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', now)]))
        .orderBy('activates_at')
        .orderBy('kid')
        .execute();
      return rows.map(toRow);
    },

    /** The key that signs with `alg` at `now`: the newest one already active. */
    async current(alg: SigningAlgorithm, now: number): Promise<SigningKeyRow | undefined> {
      const row = await db
        .selectFrom('assistant_signing_keys')
        .selectAll()
        .where('alg', '=', alg)
        .where('activates_at', '<=', now)
        .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', now)]))
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

async function newKey(core: Core, alg: SigningAlgorithm, activatesAt: number) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const kid = `${alg.toLowerCase()}-${randomBytes(12).toString('base64url')}`;
  const exported = await exportJWK(publicKey);
  const publicJwk: PublishedJwk = { ...exported, kty: exported.kty ?? '', kid, alg, use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  const privateJwkSealed = encrypt(signingKeysSecret(core), JSON.stringify(privateJwk), kid);
  return { kid, alg, publicJwk, privateJwkSealed, activatesAt };
}

/**
 * Creates a key pair for each algorithm that has none yet (first start). Two processes starting at once
 * may both create one: both are published and the newer signs, which is harmless.
 */
export async function ensureSigningKeys(core: Core, now = Date.now()): Promise<string[]> {
  const repository = signingKeyRepository(core);
  const created: string[] = [];
  const published = await repository.published(now);
  for (const alg of signingAlgorithms) {
    if (published.some((key) => key.alg === alg)) continue;
    const key = await newKey(core, alg, now);
    await repository.insert(key, now);
    created.push(key.kid);
  }
  return created;
}

/**
 * Rotation: new keys are published now and sign only after SIGNING_KEY_PUBLISH_LEAD, so every verifier
 * has fetched them first; the old keys keep signing until then and stay published for the longest
 * lifetime of what they signed afterwards.
 */
export async function rotateSigningKeys(
  core: Core,
  now = Date.now(),
): Promise<{
  created: Array<{ kid: string; alg: SigningAlgorithm; activatesAt: string }>;
  retiring: number;
  pruned: number;
}> {
  const repository = signingKeyRepository(core);
  const pruned = await repository.pruneRetired(now);
  const activatesAt = now + core.config.SIGNING_KEY_PUBLISH_LEAD * 1000;
  const created: Array<{ kid: string; alg: SigningAlgorithm; activatesAt: string }> = [];
  let retiring = 0;
  for (const alg of signingAlgorithms) {
    const key = await newKey(core, alg, activatesAt);
    retiring += await repository.scheduleRetirement(alg, activatesAt + MAX_SIGNED_TTL_SECONDS * 1000);
    await repository.insert(key, now);
    created.push({ kid: key.kid, alg, activatesAt: new Date(activatesAt).toISOString() });
  }
  return { created, retiring, pruned };
}
