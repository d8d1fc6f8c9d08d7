import { randomUUID } from 'node:crypto';
import { importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';
import { assistantIssuer } from '../../core/assistant-tokens.ts';
import type { Config } from '../../core/config.ts';
import type { Database } from '../../core/db/database.ts';
import { decrypt } from '../../core/secrets.ts';
import {
  createSigningKeyRepository,
  type PublishedJwk,
  type SigningAlgorithm,
  type SigningKeyRepository,
} from './signing-key-repository.ts';
import { MAX_SIGNED_TTL_SECONDS, signingKeysSecret } from './signing-keys.ts';

interface SignOptions {
  /** Who the token is for, e.g. `sintonia-agents`. */
  audience: string;
  /** Default SIGNED_TOKEN_TTL; at most 86400. */
  ttlSeconds?: number;
  /** Default ES256. */
  alg?: SigningAlgorithm;
}

export interface AssistantSigner {
  /** `${PUBLIC_BASE_URL or the service's address}/openid/issuer`. */
  issuer(): string;
  /** A compact JWS with `kid`, `iss`, `aud`, `iat`, `exp` and a `jti` unless the claims carry one. */
  sign(claims: JWTPayload, options: SignOptions): Promise<string>;
  /** The published public keys (current, announced and not yet retired). */
  jwks(): Promise<{ keys: PublishedJwk[] }>;
}

/** What the signer reads of its process: a process of the family (its core) is one. */
interface SignerSource {
  readonly config: Pick<Config, 'PUBLIC_BASE_URL' | 'SIGNED_TOKEN_TTL' | 'SIGNING_KEYS_SECRET'>;
  key(purpose: string): Buffer;
  /** Read per call: the service's own address is known only once it listens. */
  serviceUrl(name: 'assistant-auth'): string;
  readonly database: Database;
}

/**
 * The assistant's signer. Keys are read from the database at each call, so a rotation by the CLI applies
 * at once. Without a repository it reads the process's database (the agents' tests sign this way).
 */
export function createAssistantSigner(
  source: SignerSource,
  repository: SigningKeyRepository = createSigningKeyRepository(source.database),
): AssistantSigner {
  const { config } = source;
  const sealingKey = signingKeysSecret(source);
  // Read per call, as the verifiers read it: the service's public address.
  const issuer = () => assistantIssuer(source);
  // Imported private keys by kid: importing is the costly part, and a kid never changes its key.
  const imported = new Map<string, CryptoKey | Uint8Array>();

  async function privateKey(kid: string, sealed: string, alg: SigningAlgorithm) {
    let key = imported.get(kid);
    if (!key) {
      const jwk = JSON.parse(decrypt(sealingKey, sealed, kid).toString('utf8')) as JWK;
      key = await importJWK(jwk, alg);
      imported.set(kid, key);
    }
    return key;
  }

  return {
    issuer,
    async sign(claims, options) {
      const alg = options.alg ?? 'ES256';
      const ttl = options.ttlSeconds ?? config.SIGNED_TOKEN_TTL;
      if (!Number.isInteger(ttl) || ttl <= 0 || ttl > MAX_SIGNED_TTL_SECONDS) {
        throw new RangeError(`ttlSeconds must be an integer between 1 and ${MAX_SIGNED_TTL_SECONDS}`);
      }
      const now = Date.now();
      const key = await repository.current(alg, now);
      if (!key) throw new Error(`no ${alg} signing key is active; the service creates them at start`);
      const issuedAt = Math.floor(now / 1000);
      return new SignJWT({ jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg, kid: key.kid, typ: 'JWT' })
        .setIssuer(issuer())
        .setAudience(options.audience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ttl)
        .sign(await privateKey(key.kid, key.privateJwkSealed, alg));
    },
    async jwks() {
      const keys = await repository.published(Date.now());
      return { keys: keys.map((key) => key.publicJwk) };
    },
  };
}
