import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CoreTables } from '../db/tables.ts';
import { type ApiKeyRow, createApiKeyRepository } from './api-key-repository.ts';

/** runtime: the assistant runtime; gateway: the gateway platform; client: other clients; backoffice: operators. */
export const keyClasses = ['runtime', 'gateway', 'client', 'backoffice'] as const;
export type KeyClass = (typeof keyClasses)[number];

export interface ApiKeyRecord {
  id: string;
  name: string;
  keyClass: KeyClass;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** Last use is written at most once a minute per key: a coarse record, not a write per request. */
const LAST_USE_RESOLUTION_MS = 60_000;

// Keys are 256 random bits, so one SHA-256 is enough to store them: no guessing to slow down.
const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** `snt_<class>_<id>_<secret>`: the prefix tells a reader what the key is for; only the hash is kept. */
const KEY_PATTERN = /^snt_(runtime|gateway|client|backoffice)_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export function isKeyClass(value: string): value is KeyClass {
  return (keyClasses as readonly string[]).includes(value);
}

const toRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  keyClass: row.key_class as KeyClass,
  createdAt: new Date(row.created_at).toISOString(),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
});

/** A key's text: its class and id in the clear, then its secret. */
const keyText = (keyClass: KeyClass, id: string, secret: string) => `snt_${keyClass}_${id}_${secret}`;

/** A new, unused key's row: only the secret's hash is stored. */
const newRow = (keyClass: KeyClass, name: string, id: string, secret: string) => ({
  id,
  name,
  key_class: keyClass,
  secret_hash: hashSecret(secret),
  created_at: Date.now(),
  revoked_at: null,
  last_used_at: null,
});

/** The API keys of the family: created, listed and revoked by operators, verified on every request. */
export function createApiKeyStore(db: Kysely<CoreTables>) {
  const keys = createApiKeyRepository(db);
  return {
    /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
    async create(keyClass: KeyClass, name: string): Promise<{ id: string; key: string; class: KeyClass }> {
      const id = randomBytes(8).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      await keys.insert(newRow(keyClass, name, id, secret));
      return { id, key: keyText(keyClass, id, secret), class: keyClass };
    },

    /**
     * Records a key whose id and secret the caller derived (the family's own key, family-key.ts), unless
     * a key with that id exists: a revoked one stays revoked. True when it recorded it now.
     */
    async record(keyClass: KeyClass, name: string, id: string, secret: string): Promise<boolean> {
      if (!KEY_PATTERN.test(keyText(keyClass, id, secret))) {
        throw new Error('a recorded API key must have the form of a made one');
      }
      return keys.insertIfAbsent(newRow(keyClass, name, id, secret));
    },

    async list(): Promise<ApiKeyRecord[]> {
      return (await keys.listAll()).map(toRecord);
    },

    /** Revokes a key; false when there is no such key. Takes effect on the next request everywhere. */
    async revoke(id: string): Promise<boolean> {
      // Revoking a revoked key is not an error: only an unknown id answers false.
      return (await keys.markRevoked(id, Date.now())) || keys.exists(id);
    },

    /**
     * Whether the key with this id exists and is not revoked: one primary-key read, no cache, so what
     * rests on a key (a delegated token it obtained) falls with it in every process at once.
     */
    async isLive(id: string): Promise<boolean> {
      const row = await keys.findById(id);
      return row !== undefined && row.revoked_at === null;
    },

    /**
     * The key's record when it is well formed, known and not revoked; otherwise undefined. No cache, so a
     * revocation made by any process is seen at once; the lookup is one primary-key read.
     */
    async verify(presented: string): Promise<ApiKeyRecord | undefined> {
      const match = KEY_PATTERN.exec(presented);
      if (!match) return undefined;
      const [, keyClass, id, secret] = match as unknown as [string, KeyClass, string, string];
      const row = await keys.findById(id);
      if (!row || row.revoked_at !== null || row.key_class !== keyClass) return undefined;
      const expected = Buffer.from(row.secret_hash, 'hex');
      const actual = Buffer.from(hashSecret(secret), 'hex');
      if (!timingSafeEqual(expected, actual)) return undefined;
      const now = Date.now();
      if (row.last_used_at === null || now - row.last_used_at > LAST_USE_RESOLUTION_MS) {
        await keys.recordUse(id, now);
      }
      return toRecord(row);
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
