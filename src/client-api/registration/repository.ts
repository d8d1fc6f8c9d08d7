import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import type { MailTables } from '../mail/outbox-repository.ts';
import { createOutboxRepository, type OutboxRepository } from '../mail/outbox-repository.ts';
import type { ClientContentTables } from '../tables.ts';

export type RegistrationTables = Pick<
  ClientContentTables,
  'mail_outbox' | 'registration_requests' | 'rate_limit_counters'
>;

type RegistrationDb = Kysely<CoreTables & RegistrationTables>;

/** What one registration writes: its rate-limit counters, its record and its e-mail. */
export interface RegistrationStore {
  /** Counts one hit in a fixed window atomically (several processes agree) and answers the new total. */
  countHit(bucket: string, windowStart: number): Promise<number>;
  /** Windows that ended before `before` no longer limit anyone. */
  dropOldWindows(before: number): Promise<void>;
  recordRequest(row: RegistrationTables['registration_requests']): Promise<void>;
  outbox: Pick<OutboxRepository, 'insert'>;
}

export interface RegistrationRepository {
  /** Runs `work` in one transaction: all it wrote is committed, or none of it when it throws. */
  transaction<T>(work: (store: RegistrationStore) => Promise<T>): Promise<T>;
}

export function createRegistrationRepository(database: Database): RegistrationRepository {
  const db = database.db.withTables<RegistrationTables>();
  return {
    transaction: (work) => db.transaction().execute((trx) => work(storeOf(trx))),
  };
}

function storeOf(db: RegistrationDb): RegistrationStore {
  return {
    async countHit(bucket, windowStart) {
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
    },
    async dropOldWindows(before) {
      await db.deleteFrom('rate_limit_counters').where('window_start', '<', before).execute();
    },
    async recordRequest(row) {
      await db.insertInto('registration_requests').values(row).execute();
    },
    // Kysely types are invariant in their tables; the outbox reads only its own of this wider set.
    outbox: createOutboxRepository(db as unknown as Kysely<CoreTables & MailTables>),
  };
}
