/**
 * Tables shared by the whole family. Times are epoch milliseconds; booleans are 0/1 integers so that
 * both dialects read them alike.
 */
export interface CoreTables {
  api_keys: {
    id: string;
    name: string;
    key_class: string;
    secret_hash: string;
    created_at: number;
    revoked_at: number | null;
    last_used_at: number | null;
  };
  audit_log: {
    id: string;
    at: number;
    actor: string;
    action: string;
    subject: string;
  };
}
