/** Tables of assistant-auth. Times are epoch milliseconds. */
// A type alias, not an interface: Kysely's withTables needs the index signature aliases have.
export type AssistantAuthTables = {
  assistant_signing_keys: {
    kid: string;
    alg: string;
    /** The public JWK as JSON. */
    public_jwk: string;
    /** The private JWK as JSON, sealed with AES-256-GCM (associated data: the kid). */
    private_jwk_sealed: string;
    created_at: number;
    /** From this time on the key signs (until a newer key of its algorithm activates). */
    activates_at: number;
    /** After this time the key is no longer published; null while it is current. */
    retires_at: number | null;
  };
  assistant_users: {
    assistant_id: string;
    assistant_id_global: string;
    channel: string;
    /** How the user came to be: `channel`, `external` or `integrated`. */
    source: string;
    /** Keyed hash of channel + the channel's own user id; null for users created from an external id. */
    subject_hash: string | null;
    /** Keyed hash of the E.164 phone number, for lookup and erasure. */
    phone_hash: string | null;
    /** The phone number sealed with AES-256-GCM. */
    phone_sealed: string | null;
    created_at: number;
    expires_at: number;
  };
  assistant_callback_nonces: {
    /** Keyed hash of a callback parameter's nonce: a second use is a replay. */
    nonce_hash: string;
    expires_at: number;
  };
};
