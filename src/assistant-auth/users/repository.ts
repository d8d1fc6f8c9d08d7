import { type Kysely, sql } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import type { CoreTables } from '../../core/db/tables.ts';
import type { AssistantAuthTables } from '../tables.ts';

export type UserRow = AssistantAuthTables['assistant_users'];

type Db = Kysely<CoreTables & AssistantAuthTables>;

/** The newest record first; the id breaks ties so every reader picks the same one. */
const newest = (db: Db) =>
  db.selectFrom('assistant_users').selectAll().orderBy('created_at', 'desc').orderBy('assistant_id');

/** The reads and the insert a first login needs, on the connection or inside a transaction. */
function identityQueries(db: Db) {
  return {
    /** The newest record of one channel identity, valid or not. */
    newestBySubject: (subjectHash: string) =>
      newest(db).where('subject_hash', '=', subjectHash).executeTakeFirst(),

    newestByPhone: (phoneHash: string) => newest(db).where('phone_hash', '=', phoneHash).executeTakeFirst(),

    async insert(row: UserRow): Promise<void> {
      await db.insertInto('assistant_users').values(row).execute();
    },
  };
}

export type IdentityQueries = ReturnType<typeof identityQueries>;

export function createUserRepository(database: Database) {
  const db = database.db.withTables<AssistantAuthTables>();
  const update = (assistantId: string, changes: Partial<UserRow>) =>
    db.updateTable('assistant_users').set(changes).where('assistant_id', '=', assistantId).execute();
  const remove = () => db.deleteFrom('assistant_users');
  const count = async (query: { executeTakeFirst(): Promise<{ numDeletedRows: bigint }> }) =>
    Number((await query.executeTakeFirst()).numDeletedRows);

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
        if (database.dialect === 'postgres') {
          await sql`select pg_advisory_xact_lock(hashtextextended(${`assistant-user:${subjectHash}`}, 0))`.execute(
            trx,
          );
        }
        return work(identityQueries(trx));
      });
    },

    findById: (assistantId: string) =>
      db.selectFrom('assistant_users').selectAll().where('assistant_id', '=', assistantId).executeTakeFirst(),

    newestValidOfChannel: (assistantIdGlobal: string, channel: string, now: number) =>
      newest(db)
        .where('assistant_id_global', '=', assistantIdGlobal)
        .where('channel', '=', channel)
        .where('expires_at', '>', now)
        .executeTakeFirst(),

    /** Renews an expired record kept under the same assistantId. */
    async renew(assistantId: string, changes: Pick<UserRow, 'created_at' | 'expires_at' | 'source'>) {
      await update(assistantId, changes);
    },

    async setPhone(assistantId: string, phoneHash: string, phoneSealed: string): Promise<void> {
      await update(assistantId, { phone_hash: phoneHash, phone_sealed: phoneSealed });
    },

    /** Links the user to a pay-TV account (sealed), or unlinks it with nulls. */
    async setLink(assistantId: string, linkSealed: string | null, linkedAt: number | null): Promise<void> {
      await update(assistantId, { link_sealed: linkSealed, linked_at: linkedAt });
    },

    deleteById: (assistantId: string) => count(remove().where('assistant_id', '=', assistantId)),

    deleteBySubject: (subjectHash: string) => count(remove().where('subject_hash', '=', subjectHash)),

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
        return count(
          trx.deleteFrom('assistant_users').where((eb) =>
            eb.or([
              eb('phone_hash', '=', phoneHash),
              eb(
                'assistant_id_global',
                'in',
                globals.map((row) => row.assistant_id_global),
              ),
            ]),
          ),
        );
      });
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
