import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError, secretFileOf } from './config.ts';

/** Reads a 32-byte key written as 64 hex digits or as base64 / base64url. */
export function parseKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('a key must be 32 bytes');
  return key;
}

/** A master key and where it came from, for messages. */
export interface MasterKey {
  key: Buffer;
  /** `SINTONIA_MASTER_KEY`, `SINTONIA_MASTER_KEY (from SINTONIA_MASTER_KEY_FILE=…)`, or the key file's path. */
  source: string;
  /** Set by the operator (the variable or its file), not the key file generated into the data folder. */
  configured: boolean;
  generated: boolean;
}

type MasterKeyConfig = Pick<
  Config,
  'SINTONIA_MASTER_KEY' | 'SINTONIA_MASTER_KEY_PREVIOUS' | 'SINTONIA_DATA_DIR'
>;

function configuredKey(
  config: MasterKeyConfig,
  name: 'SINTONIA_MASTER_KEY' | 'SINTONIA_MASTER_KEY_PREVIOUS',
) {
  const text = config[name];
  if (text === undefined) return undefined;
  const file = secretFileOf(config, name);
  const source = file === undefined ? name : `${name} (from ${name}_FILE=${file})`;
  return { key: parseKey(text), source, configured: true, generated: false };
}

/**
 * The master key: SINTONIA_MASTER_KEY (or its file), or a key generated once into the data folder (mode
 * 0600) so that the embedded setup is encrypted at rest without any set-up. Production sets the variable.
 */
export function loadMasterKey(config: MasterKeyConfig): MasterKey {
  const configured = configuredKey(config, 'SINTONIA_MASTER_KEY');
  if (configured) return configured;
  const file = join(config.SINTONIA_DATA_DIR, 'master.key');
  const fromFile = () => ({
    key: parseKey(readFileSync(file, 'utf8').trim()),
    source: file,
    configured: false,
    generated: false,
  });
  if (existsSync(file)) return fromFile();
  mkdirSync(config.SINTONIA_DATA_DIR, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    // Another process created it first: use that one.
    return fromFile();
  }
  return { key, source: file, configured: false, generated: true };
}

/** SINTONIA_MASTER_KEY_PREVIOUS (or its file): the key being rotated away from, if set. */
export function loadPreviousMasterKey(config: MasterKeyConfig): MasterKey | undefined {
  const previous = configuredKey(config, 'SINTONIA_MASTER_KEY_PREVIOUS');
  if (
    previous &&
    config.SINTONIA_MASTER_KEY !== undefined &&
    previous.key.equals(parseKey(config.SINTONIA_MASTER_KEY))
  ) {
    throw new ConfigError(
      'invalid configuration: SINTONIA_MASTER_KEY_PREVIOUS is the same key as SINTONIA_MASTER_KEY',
    );
  }
  return previous;
}

/**
 * What the store records of the master key so that a process with another key refuses to start: an
 * HMAC-SHA256 of a fixed constant under the key, hex. It tells keys apart and reveals nothing of the key.
 */
export function masterKeyFingerprint(master: Buffer): string {
  return createHmac('sha256', master).update('sintonia:master-key-fingerprint:v1').digest('hex');
}

/** One key per purpose, derived from the master key with HKDF-SHA256. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `sintonia:${purpose}`, 32));
}

/** AES-256-GCM: `v1.<iv>.<ciphertext>.<tag>`, each part base64url. */
export function encrypt(key: Buffer, plaintext: string | Buffer, associatedData = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', iv, body, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Keys that a key also opens what they sealed (see withFallbacks). */
const fallbacks = new WeakMap<Buffer, readonly Buffer[]>();

/**
 * `key`, which seals as itself and also opens what any of `others` sealed: decrypt tries them after it.
 * During a master-key rotation a derived sealing key opens values sealed under the other master key's
 * derivation (src/core/keys/master-keys.ts).
 */
export function withFallbacks(key: Buffer, others: readonly Buffer[]): Buffer {
  if (others.length > 0) fallbacks.set(key, others);
  return key;
}

/** The inverse of encrypt; throws on any tampering, truncation or wrong key (after trying its fallbacks). */
export function decrypt(key: Buffer, sealed: string, associatedData = ''): Buffer {
  try {
    return decryptWith(key, sealed, associatedData);
  } catch (error) {
    for (const other of fallbacks.get(key) ?? []) {
      try {
        return decryptWith(other, sealed, associatedData);
      } catch {
        // the next one
      }
    }
    throw error;
  }
}

function decryptWith(key: Buffer, sealed: string, associatedData: string): Buffer {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') throw new Error('not a sealed value');
  const [iv, body, tag] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
  if (iv?.length !== 12 || tag?.length !== 16 || body === undefined) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]);
}

/** HMAC-SHA256 in hex: for looking up a secret value (a phone number, a token) without storing it. */
export function keyedHash(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}
