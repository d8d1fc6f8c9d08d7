import pg from 'pg';
import type { Dataset } from '../dataset.ts';
import { baselineSchema } from './seed.ts';

const BATCH = 1000;

/** `insert into <table> values (...), (...)` of up to BATCH rows at a time: one round trip per batch. */
async function insertRows(client: pg.Client, table: string, rows: unknown[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    const values: unknown[] = [];
    const tuples = batch.map((row) => {
      const placeholders = row.map((value) => {
        values.push(value);
        return `$${values.length}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    await client.query(`insert into ${table} values ${tuples.join(', ')}`, values);
  }
}

/**
 * The bare baseline's PostgreSQL database: the same tables as on SQLite (the client-api's bookmark and
 * device shape) and the same rows, in one transaction.
 */
export async function seedBaselinePostgres(
  url: string,
  dataset: Dataset,
  userHash: (user: number) => string,
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(baselineSchema);
    const now = Date.now();
    const devices = dataset.users.flatMap((user) =>
      user.deviceIds.map((id) => [
        user.accountNumber,
        id,
        `Device ${id}`,
        dataset.deviceClass,
        1,
        now,
        now,
        now,
        null,
      ]),
    );
    await insertRows(client, 'devices', devices);
    const bookmarks = dataset.bookmarks.flatMap((entry) => {
      const user = dataset.users[entry.user];
      if (!user) return [];
      return [
        [
          userHash(entry.user),
          entry.contentId,
          user.accountNumber,
          null,
          entry.offset,
          entry.at,
          entry.deviceId,
          dataset.deviceClass,
          entry.at,
        ],
      ];
    });
    await insertRows(client, 'bookmarks', bookmarks);
    await client.query('commit');
    await client.query('analyze');
  } finally {
    await client.end();
  }
}
