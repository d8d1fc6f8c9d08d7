import {
  bigint,
  integer,
  nullable,
  type SchemaColumns,
  type TableTypes,
  text,
} from '../../core/db/table-columns.ts';

/** TV sign-ins with a code, pending or decided (migration 20261125100000_device-grants). Times: epoch ms. */
export const deviceGrantColumns = {
  device_grants: {
    id: text(),
    /** SHA-256 of the device_code: the code itself is never stored. */
    device_code_hash: text(),
    /** Keyed hash of the normalised user code (its 8 letters). */
    user_code_hash: text(),
    /** The public client id, which is the device class the TV signs in as. */
    client_id: text(),
    device_id: text(),
    device_name: nullable(text()),
    /** Keyed hash of the requesting client address: the limit per address counts it. */
    address_hash: text(),
    /** The requesting address, coarsely (IPv4 /24, IPv6 /48), to show the approver (migration 20261128010000). */
    requested_from: nullable(text()),
    status: text<'pending' | 'approved' | 'denied' | 'redeemed'>(),
    /** Seconds the TV must wait between polls; grows by 5 on each `slow_down`. */
    poll_interval: integer(),
    last_polled_at: nullable(bigint()),
    /** Who decided: the account and user the TV is signed in to, and how (page, device, assistant). */
    account_number: nullable(text()),
    platform_user_id: nullable(text()),
    decided_by: nullable(text()),
    decided_at: nullable(bigint()),
    created_at: bigint(),
    expires_at: bigint(),
  },
} as const satisfies SchemaColumns;

export type DeviceGrantTables = TableTypes<typeof deviceGrantColumns>;
export type DeviceGrantRow = DeviceGrantTables['device_grants'];
