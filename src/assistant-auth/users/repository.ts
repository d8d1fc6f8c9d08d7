import { type Kysely, sql } from 'kysely';
import type { Core } from '../../core/core.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import type { AssistantAuthTables } from '../tables.ts';

export type UserRow = AssistantAuthTables['assistant_users'];

type Db = Kysely<CoreTables & AssistantAuthTables>;

/** The reads and the insert a first login needs, on the connection or inside a transaction. */
function identityQueries(db: Db) {
  const users = () => db.selectFrom('assistant_users').selectAll();
  return {
    /** The newest record of one channel identity, valid or not. */
    newestBySubject: (subjectHash: string) =>
      users()
        .where('subject_hash', '=', subjectHash)
        .orderBy('created_at', 'desc')
        .orderBy('assistant_id')
        .executeTakeFirst(),

    newestByPhone: (phoneHash: string) =>
      users()
        .where('phone_hash', '=', phoneHash)
        .orderBy('created_at', 'desc')
        .orderBy('assistant_id')
        .executeTakeFirst(),

    async insert(row: UserRow): Promise<void> {
      await db.insertInto('assistant_users').values(row).execute();
    },
  };
}

export type IdentityQueries = ReturnType<typeof identityQueries>;

export function userRepository(core: Core) {
  const db = core.database.db.withTables<AssistantAuthTables>();
  const users = () => db.selectFrom('assistant_users').selectAll();

  return {
    ...identityQueries(db),

    /**
     * Runs `work` in a transaction that holds the first-login lock of one channel identity, so concurrent
     * first logins of one identity find-or-create one user. On PostgreSQL a transaction-scoped advisory
     * lock keyed by the identity; on SQLite the transaction itself (one connection, one writer). `work`
     * must use only the queries it is given: on SQLite any other query would wait for this transaction.
     */
    withIdentityLock<T>(subjectHash: string, work: (locked: IdentityQueries) => Promise<T>): Promise<T> {
      return db.transaction().execute(async (trx) => {
        if (core.database.dialect === 'postgres') {
          await sql`select pg_advisory_xact_lock(hashtextextended(${`assistant-user:${subjectHash}`}, 0))`.execute(
            trx,
          );
        }
        return work(identityQueries(trx));
      });
    },

    findById: (assistantId: string) => users().where('assistant_id', '=', assistantId).executeTakeFirst(),

    newestValidOfChannel: (assistantIdGlobal: string, channel: string, now: number) =>
      users()
        .where('assistant_id_global', '=', assistantIdGlobal)
        .where('channel', '=', channel)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('assistant_id')
        .executeTakeFirst(),

    /** Renews an expired record kept under the same assistantId. */
    async renew(assistantId: string, changes: Pick<UserRow, 'created_at' | 'expires_at' | 'source'>) {
      await db.updateTable('assistant_users').set(changes).where('assistant_id', '=', assistantId).execute();
    },

    async setPhone(assistantId: string, phoneHash: string, phoneSealed: string): Promise<void> {
      await db
        .updateTable('assistant_users')
        .set({ phone_hash: phoneHash, phone_sealed: phoneSealed })
        .where('assistant_id', '=', assistantId)
        .execute();
    },

    async deleteById(assistantId: string): Promise<number> {
      const result = await db
        .deleteFrom('assistant_users')
        .where('assistant_id', '=', assistantId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async deleteBySubject(subjectHash: string): Promise<number> {
      const result = await db
        .deleteFrom('assistant_users')
        .where('subject_hash', '=', subjectHash)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Removes records that expired before `before`. */
    async purgeExpiredBefore(before: number): Promise<number> {
      const result = await db
        .deleteFrom('assistant_users')
        .where('expires_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Every record of the person holding this phone number: those with the number and all their linked ids. */
    async erasePerson(phoneHash: string): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const globals = await trx
          .selectFrom('assistant_users')
          .select('assistant_id_global')
          .distinct()
          .where('phone_hash', '=', phoneHash)
          .execute();
        if (globals.length === 0) return 0;
        const result = await trx
          .deleteFrom('assistant_users')
          .where((eb) =>
            eb.or([
              eb('phone_hash', '=', phoneHash),
              eb(
                'assistant_id_global',
                'in',
                globals.map((row) => row.assistant_id_global),
              ),
            ]),
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
}
