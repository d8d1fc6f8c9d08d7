/**
 * Seeds the real client-api's store (embedded or PostgreSQL) through the project's own code: accounts through the
 * account service (so userHash is derived as in production), users through the user repository with a
 * password hashed once by the project's scrypt, and the 10,000 devices and 100,000 bookmarks as
 * Kysely-compiled inserts, run in one transaction: on SQLite as one prepared statement per row, on
 * PostgreSQL as multi-row inserts.
 */
import type SQLite from 'better-sqlite3';
import { type CompiledQuery, sql } from 'kysely';
import { createAccountRepository } from '../src/client-api/accounts/repository.ts';
import { createAccountService } from '../src/client-api/accounts/service.ts';
import { USER_HASH_KEY_PURPOSE } from '../src/client-api/accounts/user-hash.ts';
import type { AccountTables, ClientContentTables } from '../src/client-api/tables.ts';
import { hashPassword } from '../src/client-api/users/passwords.ts';
import { createUserRepository } from '../src/client-api/users/repository.ts';
import { loadConfig } from '../src/core/config.ts';
import { openCore } from '../src/core/core.ts';
import type { Dataset } from './dataset.ts';

export const BENCH_PASSWORD = 'bench-password-0';
/** Rows per insert when seeding PostgreSQL (9 columns: well under its 65,535 parameters). */
const BATCH = 1000;

type Tables = Pick<AccountTables, 'devices'> & Pick<ClientContentTables, 'bookmarks'>;

/** Runs `compiled` (one row's insert) as a prepared statement for every row, columns in the same order. */
function preparedInsert<Row extends object>(
  connection: SQLite.Database,
  compiled: CompiledQuery,
  sample: Row,
): (row: Row) => void {
  const statement = connection.prepare(compiled.sql);
  const columns = Object.keys(sample) as Array<keyof Row>;
  return (row) => {
    statement.run(columns.map((column) => row[column]));
  };
}

/** Seeds the store; answers each user's userHash (by user index). */
export async function seedSintonia(env: Record<string, string>, dataset: Dataset): Promise<string[]> {
  const core = await openCore(loadConfig(env as NodeJS.ProcessEnv));
  try {
    const accounts = createAccountService(
      core.key(USER_HASH_KEY_PURPOSE),
      createAccountRepository(core.database),
    );
    const users = createUserRepository(core.database);
    const passwordHash = await hashPassword(BENCH_PASSWORD);
    const now = Date.now();
    const userHashes: string[] = [];
    for (const user of dataset.users) {
      const account = await accounts.create(user.accountNumber, now);
      userHashes.push(account.userHash);
      await users.insert({
        platform_user_id: user.platformUserId,
        account_number: user.accountNumber,
        email: user.email,
        password_hash: passwordHash,
        profiles: '[]',
        subscriptions: '[]',
        created_at: now,
      });
    }

    const db = core.database.db.withTables<Tables>();
    const deviceSample: Tables['devices'] = {
      account_number: '',
      device_id: '',
      name: '',
      device_class: dataset.deviceClass,
      enabled: 1,
      registered_at: now,
      activated_at: now,
      last_seen_at: now,
      last_playback_at: null,
    };
    const bookmarkSample: Tables['bookmarks'] = {
      user_hash: '',
      content_id: 0,
      account_number: null,
      version: null,
      offset_seconds: 0,
      position_at: now,
      device_id: '',
      device_class: dataset.deviceClass,
      updated_at: now,
    };
    const devices = dataset.users.flatMap((user) =>
      user.deviceIds.map((deviceId) => ({
        ...deviceSample,
        account_number: user.accountNumber,
        device_id: deviceId,
        name: `Device ${deviceId}`,
      })),
    );
    const bookmarks = dataset.bookmarks.flatMap((bookmark) => {
      const userHash = userHashes[bookmark.user];
      if (userHash === undefined) return [];
      return [
        {
          ...bookmarkSample,
          user_hash: userHash,
          content_id: bookmark.contentId,
          offset_seconds: bookmark.offset,
          position_at: bookmark.at,
          device_id: bookmark.deviceId,
          updated_at: bookmark.at,
        },
      ];
    });
    const connection = core.database.sqlite;
    if (connection) {
      const insertDevice = preparedInsert(
        connection,
        db.insertInto('devices').values(deviceSample).compile(),
        deviceSample,
      );
      const insertBookmark = preparedInsert(
        connection,
        db.insertInto('bookmarks').values(bookmarkSample).compile(),
        bookmarkSample,
      );
      connection.transaction(() => {
        for (const device of devices) insertDevice(device);
        for (const bookmark of bookmarks) insertBookmark(bookmark);
      })();
    } else {
      // PostgreSQL: multi-row inserts of BATCH rows, one round trip each, in one transaction.
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < devices.length; start += BATCH)
          await trx
            .insertInto('devices')
            .values(devices.slice(start, start + BATCH))
            .execute();
        for (let start = 0; start < bookmarks.length; start += BATCH)
          await trx
            .insertInto('bookmarks')
            .values(bookmarks.slice(start, start + BATCH))
            .execute();
      });
      await sql`analyze`.execute(db);
    }
    return userHashes;
  } finally {
    await core.close();
  }
}
