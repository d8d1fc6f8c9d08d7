/**
 * Seeds both targets with the data set of one shape (bench/dataset.ts). The client-api's store through the
 * product's own code (migrations, userHash), users with a password in the product's format at a cheap
 * scrypt cost (N=2^10: the load's users sign in through the real route without the production cost).
 */
import { randomBytes, scryptSync } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { newUserCode, USER_HASH_KEY_PURPOSE, userHashOf } from '../src/client-api/accounts/user-hash.ts';
import type { AccountTables } from '../src/client-api/tables.ts';
import { loadConfig } from '../src/core/config.ts';
import { openCore } from '../src/core/core.ts';
import { accountNumber, email, padded, platformUserId, type Shape, seedRows, series } from './dataset.ts';
import { adminQuery } from './store.ts';

export const BENCH_PASSWORD = 'bench-password-0';
/** Rows per multi-row insert: 7 columns, well under either store's parameter limit. */
const BATCH = 1000;

/** Seeds the client-api store `env` names; answers every user's userHash (by index). */
export async function seedSintonia(env: Record<string, string>, shape: Shape) {
  const core = await openCore(loadConfig(env as NodeJS.ProcessEnv));
  try {
    const key = core.key(USER_HASH_KEY_PURPOSE);
    const db = core.database.db.withTables<AccountTables>();
    const now = Date.now();
    const salt = randomBytes(16);
    const derived = scryptSync(BENCH_PASSWORD.normalize('NFC'), salt, 32, { N: 1024, r: 8, p: 1 });
    const passwordHash = `scrypt$1024$8$1$${salt.toString('base64url')}$${derived.toString('base64url')}`;
    const userHashes: string[] = [];
    for (let start = 0; start < shape.users; start += BATCH) {
      const indexes = Array.from({ length: Math.min(BATCH, shape.users - start) }, (_, i) => start + i);
      const accounts = indexes.map((user) => {
        const user_code = newUserCode();
        const user_hash = userHashOf(key, user_code);
        userHashes.push(user_hash);
        return { account_number: accountNumber(user), user_code, user_hash, created_at: now };
      });
      await db.insertInto('accounts').values(accounts).execute();
      const users = indexes.map((user) => ({
        platform_user_id: platformUserId(user),
        account_number: accountNumber(user),
        email: email(user),
        password_hash: passwordHash,
        profiles: '[]',
        subscriptions: '[]',
        created_at: now,
      }));
      await db.insertInto('users').values(users).execute();
    }
    const dialect = core.database.dialect;
    const users = `select user_hash, cast(substr(account_number, 2) as integer) as a from accounts`;
    for (const statement of seedRows(dialect, shape, users, now)) await sql.raw(statement).execute(db);
    if (dialect === 'postgres') await sql`analyze`.execute(db);
    return userHashes;
  } finally {
    await core.close();
  }
}

export const BARE_SCHEMA = `
create table devices (account_number text not null, device_id text not null, name text not null,
  device_class text not null, enabled integer not null, registered_at bigint not null,
  activated_at bigint not null, last_seen_at bigint not null, last_playback_at bigint,
  primary key (account_number, device_id));
create table bookmarks (user_hash text not null, content_id bigint not null, account_number text,
  version text, offset_seconds integer not null, position_at bigint not null, device_id text not null,
  device_class text not null, updated_at bigint not null, primary key (user_hash, content_id));`;

/** The bare baseline's user hash of a user: any string unique per user will do. */
export const bareUserHash = (user: number) => `h${String(user).padStart(7, '0')}`;

/** Seeds the bare baseline's store: a SQLite file, or a PostgreSQL database's URL. */
export async function seedBare(store: string, shape: Shape): Promise<void> {
  const dialect = store.startsWith('postgres') ? 'postgres' : 'sqlite';
  const users = `with recursive ${series('s', 'a', shape.users)}
    select 'h' || ${padded(dialect, 'a', 7)} as user_hash, a from s`;
  const statements = [BARE_SCHEMA, ...seedRows(dialect, shape, users, Date.now())];
  if (dialect === 'postgres') for (const text of [...statements, 'analyze']) await adminQuery(store, text);
  else {
    const db = new SQLite(store);
    db.pragma('journal_mode = WAL');
    for (const text of statements) db.exec(text);
    db.close();
  }
}
