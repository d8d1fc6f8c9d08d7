import type { Kysely } from 'kysely';
import type { CoreTables } from '../../core/db/tables.ts';
import type { MailTables } from '../mail/outbox.ts';

export type RegistrationTables = MailTables & {
  registration_requests: {
    id: string;
    device_class: string;
    email_hash: string;
    outbox_id: string;
    created_at: number;
  };
  rate_limit_counters: {
    bucket: string;
    window_start: number;
    hits: number;
  };
};

/** Counts one hit in a fixed window atomically (several processes agree) and answers the new total. */
export async function countHit(
  db: Kysely<CoreTables & RegistrationTables>,
  bucket: string,
  windowStart: number,
): Promise<number> {
  const row = await db
    .insertInto('rate_limit_counters')
    .values({ bucket, window_start: windowStart, hits: 1 })
    .onConflict((conflict) =>
      conflict
        .columns(['bucket', 'window_start'])
        .doUpdateSet((eb) => ({ hits: eb('rate_limit_counters.hits', '+', 1) })),
    )
    .returning('hits')
    .executeTakeFirstOrThrow();
  return Number(row.hits);
}

/** Windows that ended before `before` no longer limit anyone. */
export async function dropOldWindows(
  db: Kysely<CoreTables & RegistrationTables>,
  before: number,
): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('window_start', '<', before).execute();
}

export async function recordRequest(
  db: Kysely<CoreTables & RegistrationTables>,
  row: RegistrationTables['registration_requests'],
): Promise<void> {
  await db.insertInto('registration_requests').values(row).execute();
}
