import { bigint, nullable, type SchemaColumns, type TableTypes, text } from '../core/db/table-columns.ts';

/** Tables of assistant-auth (migration 20261122083000_assistant-auth). Times are epoch milliseconds. */
export const assistantAuthColumns = {
  assistant_signing_keys: {
    kid: text(),
    alg: text(),
    /** The public JWK as JSON. */
    public_jwk: text(),
    /** The private JWK as JSON, sealed with AES-256-GCM (associated data: the kid). */
    private_jwk_sealed: text(),
    created_at: bigint(),
    /** From this time on the key signs (until a newer key of its algorithm activates). */
    activates_at: bigint(),
    /** After this time the key is no longer published; null while it is current. */
    retires_at: nullable(bigint()),
  },
  assistant_users: {
    assistant_id: text(),
    assistant_id_global: text(),
    channel: text(),
    /** How the user came to be: `channel`, `external` or `integrated`. */
    source: text(),
    /** Keyed hash of channel + the channel's own user id; null for users created from an external id. */
    subject_hash: nullable(text()),
    /** Keyed hash of the E.164 phone number, for lookup and erasure. */
    phone_hash: nullable(text()),
    /** The phone number sealed with AES-256-GCM. */
    phone_sealed: nullable(text()),
    /**
     * The linked pay-TV account `{ accountNumber, platformUserId? }` as JSON, sealed with AES-256-GCM
     * (associated data: the assistantId); null while unlinked (migration 20261123200002_assistant-links).
     */
    link_sealed: nullable(text()),
    linked_at: nullable(bigint()),
    created_at: bigint(),
    expires_at: bigint(),
  },
  assistant_callback_nonces: {
    /** Keyed hash of a callback parameter's nonce: a second use is a replay. */
    nonce_hash: text(),
    expires_at: bigint(),
  },
} as const satisfies SchemaColumns;

export type AssistantAuthTables = TableTypes<typeof assistantAuthColumns>;
