/**
 * Every purpose a key is derived from the master key for (Core.key), in three kinds, so that a master-key
 * rotation (rotation.ts, docs/keys-and-backups.md) knows what to do with each:
 *
 * - sealing keys: AES-256-GCM keys of values sealed at rest in the store. A rotation opens every such value
 *   and seals it again under the new master key's derivation.
 * - carried keys: keys whose results outlive the key and cannot be made again from what the store holds:
 *   keyed hashes looked up by recomputing them (a channel identity, a phone number, a userHash handed out),
 *   counters keyed by a hash, and secrets and tokens handed to clients and peers. A rotation keeps each as
 *   it is: the key in use is recorded in the store, sealed under the new master key, and used from then on.
 *
 * - followed keys: derived from the master key and nothing else; a rotation changes them (followedPurposes).
 *
 * Core.key refuses a purpose that is not declared here, so a new one cannot escape the rotation.
 */

/** A column of sealed values: which key seals it and what associated data each value was sealed with. */
export interface SealedColumn {
  purpose: string;
  table: string;
  /** The row's key, which is also the associated data the value is sealed with. */
  id: string;
  column: string;
  /** A configuration variable that, when set, replaces this derived key: the column is then not the master key's. */
  replacedBy?: 'SIGNING_KEYS_SECRET';
}

export const sealedColumns: readonly SealedColumn[] = [
  {
    purpose: 'client-api:device-signing-keys',
    table: 'device_signing_keys',
    id: 'kid',
    column: 'private_jwk_sealed',
  },
  { purpose: 'mail-outbox', table: 'mail_outbox', id: 'id', column: 'sealed_message' },
  {
    purpose: 'signing-keys',
    table: 'assistant_signing_keys',
    id: 'kid',
    column: 'private_jwk_sealed',
    replacedBy: 'SIGNING_KEYS_SECRET',
  },
  { purpose: 'assistant-phone', table: 'assistant_users', id: 'assistant_id', column: 'phone_sealed' },
  {
    purpose: 'assistant-account-link',
    table: 'assistant_users',
    id: 'assistant_id',
    column: 'link_sealed',
  },
  {
    purpose: 'agent-confirmation-arguments',
    table: 'agent_confirmations',
    id: 'id',
    column: 'arguments_sealed',
  },
];

/** Carried keys, each with why it must not change (docs/keys-and-backups.md lists the same). */
export const carriedPurposes = {
  'client-api:user-hash': 'the userHash of an account, handed to clients and partners',
  'client-api:login-throttle': 'the keys of the sign-in failure counters',
  'registration-rate-limit': 'the keys of the registration request counters',
  'assistant-subject': 'finds an assistant user by channel and identity',
  'assistant-phone-hash': 'finds an assistant user by phone number (lookup and erasure)',
  'agent-confirmation-owner': 'who may settle a pending confirmation',
  'agent-chat-history-owner': 'whose conversation a remembered chat turn belongs to',
  'client-api:device-grants': 'finds a pending TV sign-in by the user code the TV shows',
  'client-api:user-code-throttle': 'the keys of the wrong TV sign-in code counters',
  'client-api:tv-sign-in-page': 'the tickets the TV sign-in page hands the browser between its two steps',
  'callback-nonce': 'the spent nonces of gateway callbacks (a replay stays refused)',
  'gateway-callback': 'the callback key shared with the gateway, unless GATEWAY_CALLBACK_KEY is set',
  'directline-secret': 'the embedded Direct Line channel secret given to its clients',
  'directline-token': 'Direct Line conversation tokens held by clients',
  'directline-stream': 'Direct Line stream URLs held by clients',
  'directline-file': 'Direct Line attachment URLs held by clients',
  'client-api:command-stream': 'device command stream URLs (tickets) held by clients',
} as const;

/**
 * Followed keys: derived from the master key the store is at, kept nowhere, so each changes with the
 * master key. What rests on one is made again from it (an API key the family gives itself, recorded in
 * the store by the first process that derives it: api-keys/family-key.ts).
 */
export const followedPurposes = {
  'family-runtime-key':
    'the runtime API key with which the services call each other (api-keys/family-key.ts)',
} as const;

export function isFollowedPurpose(purpose: string): purpose is keyof typeof followedPurposes {
  return Object.hasOwn(followedPurposes, purpose);
}

/** The purpose of the key that seals the carried keys in the store (table store_identity). */
export const CARRIED_KEYS_PURPOSE = 'carried-keys';
/** store_identity name of a carried key. */
export const carriedKeyName = (purpose: string) => `carried_key:${purpose}`;

export const sealingPurposes: ReadonlySet<string> = new Set([
  ...sealedColumns.map((column) => column.purpose),
  CARRIED_KEYS_PURPOSE,
]);

export function isCarriedPurpose(purpose: string): purpose is keyof typeof carriedPurposes {
  return Object.hasOwn(carriedPurposes, purpose);
}
