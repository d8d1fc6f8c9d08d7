import type { Core } from '../../core/core.ts';
import type { AssistantAuthTables } from '../tables.ts';

export type UserRow = AssistantAuthTables['assistant_users'];

export function userRepository(core: Core) {
  const db = core.database.db.withTables<AssistantAuthTables>();
  const users = () => db.selectFrom('assistant_users').selectAll();

  return {
    findById: (assistantId: string) => users().where('assistant_id', '=', assistantId).executeTakeFirst(),

    /** The newest record of one channel identity, valid or not. */
    newestBySubject: (subjectHash: string) =>
      users()
        .where('subject_hash', '=', subjectHash)
        .orderBy('created_at', 'desc')
        .orderBy('assistant_id')
        .executeTakeFirst(),

    /** The first valid record of one channel identity: where concurrent first logins converge. */
    oldestValidBySubject: (subjectHash: string, now: number) =>
      users()
        .where('subject_hash', '=', subjectHash)
        .where('expires_at', '>', now)
        .orderBy('created_at')
        .orderBy('assistant_id')
        .executeTakeFirst(),

    newestByPhone: (phoneHash: string) =>
      users()
        .where('phone_hash', '=', phoneHash)
        .orderBy('created_at', 'desc')
        .orderBy('assistant_id')
        .executeTakeFirst(),

    newestValidOfChannel: (assistantIdGlobal: string, channel: string, now: number) =>
      users()
        .where('assistant_id_global', '=', assistantIdGlobal)
        .where('channel', '=', channel)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('assistant_id')
        .executeTakeFirst(),

    async insert(row: UserRow): Promise<void> {
      await db.insertInto('assistant_users').values(row).execute();
    },

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
