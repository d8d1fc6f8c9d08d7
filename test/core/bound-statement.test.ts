import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { bindStatement, defineStatement } from '../../src/core/db/statement.ts';
import { createTestCore, type TestCore, testDatabase } from '../helpers/harness.ts';

interface Tables {
  bound_items: { id: string; owner: string | null; size: number };
}

/** A repeated argument, an optional one, and a constant (`size > 0`), as the product's statements have. */
const find = defineStatement(
  'bound_items_find',
  (db: Kysely<Tables>, args: { owner?: string | null; id: string }) =>
    db
      .selectFrom('bound_items')
      .select(['id', 'owner', 'size'])
      .where(sql<boolean>`(cast(${args.owner} as text) is null or owner = ${args.owner})`)
      .where('id', '>=', args.id)
      .where('size', '>', 0)
      .orderBy('id'),
);

const packed = defineStatement(
  'bound_items_find_packed',
  (db: Kysely<Tables>, args: { id: string }) =>
    db.selectFrom('bound_items').select(['id', 'owner as holder']).where('id', '=', args.id),
  { packed: true },
);

describe(`a bound statement lays its arguments out as the placeholders' values (${testDatabase})`, () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
    const { db } = core.database;
    await sql`create table bound_items (id text primary key, owner text, size integer not null)`.execute(db);
    await sql`insert into bound_items values ('a', 'ann', 1), ('b', 'bob', 2), ('c', null, 0), ('d', 'ann', 3)`.execute(
      db,
    );
  });
  after(() => core.dispose());

  it('binds a repeated argument at each place, an omitted one as null, and keeps the constants', async () => {
    const run = bindStatement(core.database, find);
    assert.deepEqual(
      (await run({ owner: 'ann', id: 'a' })).map((row) => row.id),
      ['a', 'd'],
    );
    // No owner: the narrowing is off; the constant still leaves out the row of size 0.
    assert.deepEqual(
      (await run({ id: 'a' })).map((row) => row.id),
      ['a', 'b', 'd'],
    );
    assert.deepEqual(
      (await run({ owner: null, id: 'c' })).map((row) => row.id),
      ['d'],
    );
  });

  it('answers rows by the selection names, packed or not', async () => {
    assert.deepEqual(await bindStatement(core.database, packed)({ id: 'b' }), [{ id: 'b', holder: 'bob' }]);
  });

  it('refuses an argument name that is not a plain identifier, when it is bound', () => {
    const odd = defineStatement('bound_items_odd', (db: Kysely<Tables>, args: Record<string, string>) =>
      db
        .selectFrom('bound_items')
        .select('id')
        .where('id', '=', args['id; drop'] as string),
    );
    assert.throws(() => bindStatement(core.database, odd), /argument id; drop is not a plain name/);
  });
});
