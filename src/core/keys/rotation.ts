import { type Kysely, sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createStoreIdentityRepository } from '../db/store-identity.ts';
import type { CoreTables } from '../db/tables.ts';
import { decrypt, deriveKey, encrypt, masterKeyFingerprint } from '../secrets.ts';
import { FINGERPRINT, type MasterKeys, openCarriedKeys } from './master-keys.ts';
import {
  CARRIED_KEYS_PURPOSE,
  carriedKeyName,
  carriedPurposes,
  type SealedColumn,
  sealedColumns,
} from './purposes.ts';

/** What a rotation did, column by column: values sealed again, values already under the new key. */
export interface RotationReport {
  /** Which key the store was at: SINTONIA_MASTER_KEY_PREVIOUS, or SINTONIA_MASTER_KEY already. */
  from: 'SINTONIA_MASTER_KEY_PREVIOUS' | 'SINTONIA_MASTER_KEY';
  to: 'SINTONIA_MASTER_KEY';
  resealed: Record<string, number>;
  alreadyCurrent: Record<string, number>;
  /** Columns sealed under a key of their own (SIGNING_KEYS_SECRET), left alone. */
  skipped: string[];
  /** Purposes whose keys the store now records, sealed under the new key. */
  carried: string[];
}

export class RotationError extends Error {}

const columnName = (column: SealedColumn) => `${column.table}.${column.column}`;

/**
 * Moves the store to SINTONIA_MASTER_KEY in one transaction: every value sealed under a key derived from
 * the master key is opened (under SINTONIA_MASTER_KEY or SINTONIA_MASTER_KEY_PREVIOUS) and, unless the new
 * key already opens it, sealed again under the new key's derivation; the carried keys are recorded sealed
 * under the new key; the store's fingerprint becomes the new key's. Anything that opens under neither key
 * aborts it all. Run again with the same keys, it seals what processes still at the previous key wrote
 * meanwhile, and changes nothing else.
 */
export async function rotateMasterKey(
  database: Database,
  keys: MasterKeys,
  config: Pick<Config, 'SIGNING_KEYS_SECRET'>,
): Promise<RotationReport> {
  const target = keys.current.key;
  const targetPrint = masterKeyFingerprint(target);
  return database.db.transaction().execute(async (trx) => {
    const identity = createStoreIdentityRepository(trx);
    const now = Date.now();
    // A write first: the transaction takes the store's write lock (SQLite, waiting as any writer does) or
    // the fingerprint row's (PostgreSQL) before it reads anything, so two rotations cannot interleave.
    await sql`update store_identity set value = value where name = ${FINGERPRINT}`.execute(trx);
    const [recorded] = (await identity.readPrefix(FINGERPRINT)).filter((row) => row.name === FINGERPRINT);
    let from: RotationReport['from'];
    if (recorded?.value === targetPrint) {
      from = 'SINTONIA_MASTER_KEY';
      await identity.replace(FINGERPRINT, targetPrint, targetPrint, now);
    } else if (keys.previous && recorded?.value === masterKeyFingerprint(keys.previous.key)) {
      from = 'SINTONIA_MASTER_KEY_PREVIOUS';
      if (!(await identity.replace(FINGERPRINT, recorded.value, targetPrint, now))) {
        throw new RotationError('the store’s master key changed during the rotation; run it again');
      }
    } else {
      throw new RotationError(
        'the store records neither SINTONIA_MASTER_KEY nor SINTONIA_MASTER_KEY_PREVIOUS: nothing to rotate from',
      );
    }
    const previous = keys.previous?.key;
    const report: RotationReport = {
      from,
      to: 'SINTONIA_MASTER_KEY',
      resealed: {},
      alreadyCurrent: {},
      skipped: [],
      carried: [],
    };
    for (const column of sealedColumns) {
      if (column.replacedBy && config[column.replacedBy] !== undefined) {
        report.skipped.push(`${columnName(column)} (${column.replacedBy})`);
        continue;
      }
      const counts = await resealColumn(trx, column, target, previous);
      report.resealed[columnName(column)] = counts.resealed;
      report.alreadyCurrent[columnName(column)] = counts.alreadyCurrent;
    }
    // The carried keys: the recorded ones as they are, else those of the key the store was at.
    const storeMaster = from === 'SINTONIA_MASTER_KEY' ? target : (previous as Buffer);
    const recordedCarried = await openCarriedKeys(identity, [target, ...(previous ? [previous] : [])]);
    const sealing = deriveKey(target, CARRIED_KEYS_PURPOSE);
    for (const purpose of Object.keys(carriedPurposes)) {
      const key = recordedCarried.get(purpose) ?? deriveKey(storeMaster, purpose);
      await identity.put(carriedKeyName(purpose), encrypt(sealing, key, purpose), now);
      report.carried.push(purpose);
    }
    return report;
  });
}

async function resealColumn(
  db: Kysely<CoreTables>,
  { table, id, column, purpose }: SealedColumn,
  target: Buffer,
  previous: Buffer | undefined,
): Promise<{ resealed: number; alreadyCurrent: number }> {
  const newKey = deriveKey(target, purpose);
  const oldKey = previous ? deriveKey(previous, purpose) : undefined;
  const rows = await sql<{ id: string; sealed: string }>`
    select ${sql.ref(id)} as id, ${sql.ref(column)} as sealed from ${sql.table(table)}
    where ${sql.ref(column)} is not null and ${sql.ref(column)} <> ''`.execute(db);
  let resealed = 0;
  let alreadyCurrent = 0;
  for (const row of rows.rows) {
    if (opens(newKey, row.sealed, row.id)) {
      alreadyCurrent += 1;
      continue;
    }
    const plain = oldKey && opened(oldKey, row.sealed, row.id);
    if (plain === undefined) {
      throw new RotationError(
        `${table}.${column} of ${id} ${row.id} opens under neither SINTONIA_MASTER_KEY nor SINTONIA_MASTER_KEY_PREVIOUS; nothing was changed`,
      );
    }
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${encrypt(newKey, plain, row.id)}
      where ${sql.ref(id)} = ${row.id} and ${sql.ref(column)} = ${row.sealed}`.execute(db);
    resealed += 1;
  }
  return { resealed, alreadyCurrent };
}

function opened(key: Buffer, sealed: string, associatedData: string): Buffer | undefined {
  try {
    return decrypt(key, sealed, associatedData);
  } catch {
    return undefined;
  }
}

const opens = (key: Buffer, sealed: string, associatedData: string) =>
  opened(key, sealed, associatedData) !== undefined;
