import { bigint, nullable, type SchemaColumns, type TableTypes, text } from './table-columns.ts';

/**
 * Tables shared by the whole family (migrations 20261122080000_core and 20261123200001_store-identity).
 * Times are epoch milliseconds; booleans are 0/1 integers so that both dialects read them alike.
 */
export const coreColumns = {
  api_keys: {
    id: text(),
    name: text(),
    /** One of the key classes (runtime, gateway, client, backoffice). */
    key_class: text(),
    /** SHA-256 of the key's secret, hex: the secret itself is never stored. */
    secret_hash: text(),
    created_at: bigint(),
    revoked_at: nullable(bigint()),
    last_used_at: nullable(bigint()),
  },
  audit_log: {
    id: text(),
    at: bigint(),
    /** A key id, an operator or a service: never personal data. */
    actor: text(),
    action: text(),
    subject: text(),
  },
  /** Facts about the store itself, by name: `master_key_fingerprint` (src/core/db/store-identity.ts). */
  store_identity: {
    name: text(),
    value: text(),
    recorded_at: bigint(),
  },
} as const satisfies SchemaColumns;

export type CoreTables = TableTypes<typeof coreColumns>;
