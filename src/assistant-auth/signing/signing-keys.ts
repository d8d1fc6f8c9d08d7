import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { Config } from '../../core/config.ts';
import { encrypt, parseKey } from '../../core/secrets.ts';
import {
  type PublishedJwk,
  type SigningAlgorithm,
  type SigningKeyRepository,
  signingAlgorithms,
} from './signing-key-repository.ts';

/** The longest lifetime the signer gives a token; a superseded key stays published this long. */
export const MAX_SIGNED_TTL_SECONDS = 86_400;

/** The key that seals private keys at rest: SIGNING_KEYS_SECRET, else one derived from the master key. */
export function signingKeysSecret(source: {
  config: Pick<Config, 'SIGNING_KEYS_SECRET'>;
  key(purpose: string): Buffer;
}): Buffer {
  const configured = source.config.SIGNING_KEYS_SECRET;
  return configured ? parseKey(configured) : source.key('signing-keys');
}

interface Rotation {
  created: Array<{ kid: string; alg: SigningAlgorithm; activatesAt: string }>;
  retiring: number;
  pruned: number;
}

/** The life of the assistant's signing keys: created at first start, rotated by the CLI. */
export function createSigningKeys(
  settings: Pick<Config, 'SIGNING_KEY_PUBLISH_LEAD'>,
  { repository, sealingKey }: { repository: SigningKeyRepository; sealingKey: Buffer },
) {
  async function newKey(alg: SigningAlgorithm, activatesAt: number) {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
    const kid = `${alg.toLowerCase()}-${randomBytes(12).toString('base64url')}`;
    const exported = await exportJWK(publicKey);
    const publicJwk: PublishedJwk = { ...exported, kty: exported.kty ?? '', kid, alg, use: 'sig' };
    const privateJwk = await exportJWK(privateKey);
    const privateJwkSealed = encrypt(sealingKey, JSON.stringify(privateJwk), kid);
    return { kid, alg, publicJwk, privateJwkSealed, activatesAt };
  }

  return {
    /**
     * Creates a key pair for each algorithm that has none yet (first start); returns their kids. Two
     * processes starting at once may both create one: both are published and the newer signs, harmlessly.
     */
    async ensure(now = Date.now()): Promise<string[]> {
      const created: string[] = [];
      const published = await repository.published(now);
      for (const alg of signingAlgorithms) {
        if (published.some((key) => key.alg === alg)) continue;
        const key = await newKey(alg, now);
        await repository.insert(key, now);
        created.push(key.kid);
      }
      return created;
    },

    /**
     * New keys are published now and sign only after SIGNING_KEY_PUBLISH_LEAD, so every verifier has
     * fetched them first; the old keys keep signing until then and stay published for the longest
     * lifetime of what they signed afterwards.
     */
    async rotate(now = Date.now()): Promise<Rotation> {
      const pruned = await repository.pruneRetired(now);
      const activatesAt = now + settings.SIGNING_KEY_PUBLISH_LEAD * 1000;
      const created: Rotation['created'] = [];
      let retiring = 0;
      for (const alg of signingAlgorithms) {
        const key = await newKey(alg, activatesAt);
        retiring += await repository.scheduleRetirement(alg, activatesAt + MAX_SIGNED_TTL_SECONDS * 1000);
        await repository.insert(key, now);
        created.push({ kid: key.kid, alg, activatesAt: new Date(activatesAt).toISOString() });
      }
      return { created, retiring, pruned };
    },
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
