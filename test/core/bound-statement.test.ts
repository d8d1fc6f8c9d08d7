import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { bindStatement, defineStatement } from '../../src/core/db/statement.ts';
import { createTestCore, type TestCore, testDatabase } from '../helpers/harness.ts';

/** The product's bookmarks table: the run's statement-plans test plans what this file issues too. */
interface Tables {
  bookmarks: {
    user_hash: string;
    content_id: number;
    account_number: string | null;
    version: string | null;
    offset_seconds: number;
    position_at: number;
    device_id: string;
    device_class: string;
    updated_at: number;
  };
}

/** A repeated argument, an optional one, and a constant (`offset_seconds > 0`), as the product's statements have. */
const find = defineStatement(
  'bound_bookmarks_find',
  (db: Kysely<Tables>, args: { userHash: string; accountNumber?: string | null }) =>
    db
      .selectFrom('bookmarks')
      .select(['content_id', 'account_number'])
      .where('user_hash', '=', args.userHash)
      .where(
        sql<boolean>`(cast(${args.accountNumber} as text) is null or account_number = ${args.accountNumber})`,
      )
      .where('offset_seconds', '>', 0)
      .orderBy('content_id'),
);

const packed = defineStatement(
  'bound_bookmarks_find_packed',
  (db: Kysely<Tables>, args: { userHash: string; contentId: number }) =>
    db
      .selectFrom('bookmarks')
      .select(['content_id', 'account_number as account'])
      .where('user_hash', '=', args.userHash)
      .where('content_id', '=', args.contentId),
  { packed: true },
);

const stored = (userHash: string, contentId: number, accountNumber: string | null, offset: number) => ({
  user_hash: userHash,
  content_id: contentId,
  account_number: accountNumber,
  version: null,
  offset_seconds: offset,
  position_at: 1,
  device_id: 'd1',
  device_class: 'web',
  updated_at: 1,
});

describe(`a bound statement lays its arguments out as the placeholders' values (${testDatabase})`, () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
    await (core.database.db as unknown as Kysely<Tables>)
      .insertInto('bookmarks')
      .values([
        stored('u1', 1, 'A', 10),
        stored('u1', 2, 'B', 20),
        stored('u1', 3, null, 0),
        stored('u1', 4, 'A', 40),
        stored('u2', 1, 'A', 10),
      ])
      .execute();
  });
  after(() => core.dispose());

  it('binds a repeated argument at each place, an omitted one as null, and keeps the constants', async () => {
    const run = bindStatement(core.database, find);
    const ids = async (args: { userHash: string; accountNumber?: string | null }) =>
      (await run(args)).map((row) => row.content_id);
    assert.deepEqual(await ids({ userHash: 'u1', accountNumber: 'A' }), [1, 4]);
    assert.deepEqual(await ids({ userHash: 'u1', accountNumber: 'B' }), [2]);
    // No account: the narrowing is off; the constant still leaves out the position at 0.
    assert.deepEqual(await ids({ userHash: 'u1' }), [1, 2, 4]);
    assert.deepEqual(await ids({ userHash: 'u1', accountNumber: null }), [1, 2, 4]);
  });

  it('answers rows by the selection names, packed or not', async () => {
    assert.deepEqual(await bindStatement(core.database, packed)({ userHash: 'u1', contentId: 2 }), [
      { content_id: 2, account: 'B' },
    ]);
  });

  it('refuses an argument name that is not a plain identifier, when it is bound', () => {
    const odd = defineStatement('bound_bookmarks_odd', (db: Kysely<Tables>, args: Record<string, string>) =>
      db
        .selectFrom('bookmarks')
        .select('content_id')
        .where('user_hash', '=', args['id; drop'] as string),
    );
    assert.throws(() => bindStatement(core.database, odd), /argument id; drop is not a plain name/);
  });
});
