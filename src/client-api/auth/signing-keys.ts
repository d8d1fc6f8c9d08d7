import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { decrypt, encrypt } from '../../core/secrets.ts';
import type { SigningKeyRepository } from './signing-key-repository.ts';

export type PublicJwk = JWK & { kid: string; alg: 'ES256'; use: 'sig' };

type KeyLike = Awaited<ReturnType<typeof importJWK>>;

interface LoadedKeys {
  /** The oldest key signs, so every process sharing the database signs with the same one. */
  signing: { kid: string; privateKey: KeyLike };
  verifying: Map<string, KeyLike>;
  published: PublicJwk[];
}

/** What the sealing key of the private halves is derived for (Core.key). */
export const SIGNING_KEY_PURPOSE = 'client-api:device-signing-keys';

/** Unknown kids re-read the table at most this often, so forged kids cannot hammer the database. */
const RELOAD_INTERVAL_MS = 5_000;

/**
 * The ES256 key pairs that sign device access tokens. Created on first use, private halves sealed at
 * rest (AES-256-GCM under a key derived from the master key, the kid as associated data), public
 * halves published at /.well-known/jwks.json. Loaded once per process; re-read when an unknown kid
 * appears (a key another process created).
 */
export function createSigningKeys(repository: SigningKeyRepository, sealKey: Buffer) {
  let loaded: Promise<LoadedKeys> | undefined;
  let lastLoad = 0;

  async function load(): Promise<LoadedKeys> {
    let rows = await repository.all();
    if (rows.length === 0) {
      await create();
      rows = await repository.all();
    }
    const first = rows[0];
    if (!first) throw new Error('no device signing key could be created');
    const verifying = new Map<string, KeyLike>();
    const published: PublicJwk[] = [];
    for (const row of rows) {
      const jwk = JSON.parse(row.public_jwk) as PublicJwk;
      verifying.set(row.kid, await importJWK(jwk, 'ES256'));
      published.push(jwk);
    }
    const privateJwk = JSON.parse(
      decrypt(sealKey, first.private_jwk_sealed, first.kid).toString('utf8'),
    ) as JWK;
    lastLoad = Date.now();
    return {
      signing: { kid: first.kid, privateKey: await importJWK(privateJwk, 'ES256') },
      verifying,
      published,
    };
  }

  async function create(): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = `es256-${randomBytes(12).toString('base64url')}`;
    const publicJwk: PublicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    const sealed = encrypt(sealKey, JSON.stringify(await exportJWK(privateKey)), kid);
    await repository.insert({
      kid,
      public_jwk: JSON.stringify(publicJwk),
      private_jwk_sealed: sealed,
      created_at: Date.now(),
    });
  }

  function keys(): Promise<LoadedKeys> {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  }

  return {
    signing: async () => (await keys()).signing,
    published: async () => (await keys()).published,
    /** The public key of `kid`, re-reading the table once when it is unknown. */
    async verifying(kid: string): Promise<KeyLike | undefined> {
      const current = await keys();
      const found = current.verifying.get(kid);
      if (found || Date.now() - lastLoad < RELOAD_INTERVAL_MS) return found;
      loaded = undefined;
      return (await keys()).verifying.get(kid);
    },
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
