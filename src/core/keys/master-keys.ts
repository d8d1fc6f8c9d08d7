import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createStoreIdentityRepository } from '../db/store-identity.ts';
import {
  decrypt,
  deriveKey,
  loadMasterKey,
  loadPreviousMasterKey,
  type MasterKey,
  masterKeyFingerprint,
  withFallbacks,
} from '../secrets.ts';
import {
  CARRIED_KEYS_PURPOSE,
  carriedKeyName,
  isCarriedPurpose,
  isFollowedPurpose,
  sealingPurposes,
} from './purposes.ts';

/** The store was opened with another master key than the one it records: the process must not start. */
export class MasterKeyMismatchError extends Error {}

/** store_identity name of the fingerprint of the master key the store is at. */
export const FINGERPRINT = 'master_key_fingerprint';

/** The master keys a process was given: SINTONIA_MASTER_KEY (or the key file) and, during a rotation, the previous one. */
export interface MasterKeys {
  current: MasterKey;
  previous?: MasterKey;
}

export function loadMasterKeys(
  config: Pick<Config, 'SINTONIA_MASTER_KEY' | 'SINTONIA_MASTER_KEY_PREVIOUS' | 'SINTONIA_DATA_DIR'>,
): MasterKeys {
  const previous = loadPreviousMasterKey(config);
  return { current: loadMasterKey(config), ...(previous ? { previous } : {}) };
}

/** The keys of one open store: Core.key. */
export interface Keyring {
  /** Which of the process's master keys the store was at when it opened: the one that seals. */
  readonly storeAt: 'current' | 'previous';
  key(purpose: string): Buffer;
}

/**
 * Records the master key's fingerprint in a store that has none, else compares it with the process's keys:
 * a process whose keys all differ would refuse every token and sealed value the others made, so it refuses
 * to start instead. The process seals under the key the store is at (the previous one until `master-key
 * rotate` moved the store and the process restarted) and opens what either key sealed.
 */
export async function openKeyring(database: Database, keys: MasterKeys): Promise<Keyring> {
  const identity = createStoreIdentityRepository(database.db);
  const recorded = await identity.recordOnce(FINGERPRINT, masterKeyFingerprint(keys.current.key), Date.now());
  const storeAt =
    recorded === masterKeyFingerprint(keys.current.key)
      ? 'current'
      : keys.previous && recorded === masterKeyFingerprint(keys.previous.key)
        ? 'previous'
        : undefined;
  if (storeAt === undefined) throw mismatch(database, keys);
  const sealing = storeAt === 'current' ? keys.current.key : (keys.previous?.key as Buffer);
  const others = [keys.current.key, keys.previous?.key].filter(
    (key): key is Buffer => key !== undefined && key !== sealing,
  );
  const carried = await openCarriedKeys(identity, [sealing, ...others]);
  const derived = new Map<string, Buffer>();
  return {
    storeAt,
    key(purpose) {
      let key = derived.get(purpose);
      if (key) return key;
      if (sealingPurposes.has(purpose)) {
        key = withFallbacks(
          deriveKey(sealing, purpose),
          others.map((other) => deriveKey(other, purpose)),
        );
      } else if (isFollowedPurpose(purpose)) {
        key = deriveKey(sealing, purpose);
      } else if (isCarriedPurpose(purpose)) {
        key = carried.get(purpose) ?? deriveKey(sealing, purpose);
      } else {
        throw new Error(`key purpose "${purpose}" is not declared in src/core/keys/purposes.ts`);
      }
      derived.set(purpose, key);
      return key;
    },
  };
}

/** The carried keys the store records (after a first rotation), each opened with one of the master keys. */
export async function openCarriedKeys(
  identity: ReturnType<typeof createStoreIdentityRepository>,
  masters: Buffer[],
): Promise<Map<string, Buffer>> {
  const rows = await identity.readPrefix(carriedKeyName(''));
  const opening = masters.map((master) => deriveKey(master, CARRIED_KEYS_PURPOSE));
  const [first, ...rest] = opening;
  const carried = new Map<string, Buffer>();
  if (!first) return carried;
  const key = withFallbacks(Buffer.from(first), rest);
  for (const row of rows) {
    const purpose = row.name.slice(carriedKeyName('').length);
    carried.set(purpose, decrypt(key, row.value, purpose));
  }
  return carried;
}

function mismatch(database: Database, keys: MasterKeys): MasterKeyMismatchError {
  const { current, previous } = keys;
  const which = previous
    ? `neither ${current.source} nor ${previous.source} is the master key`
    : current.configured
      ? `${current.source} is not the master key`
      : `SINTONIA_MASTER_KEY is not set and the key file ${current.source} is not the master key`;
  const hint = previous
    ? ''
    : ' To move a store to a new key, see `sintonia master-key rotate` (docs/keys-and-backups.md).';
  return new MasterKeyMismatchError(
    `${which} this store (${database.location}) records (their fingerprints differ). ` +
      `Every process on one store must run with the same SINTONIA_MASTER_KEY; refusing to start.${hint}`,
  );
}
