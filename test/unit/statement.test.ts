import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { defineStatement } from '../../src/core/db/statement.ts';

interface Tables {
  items: { id: string; owner: string | null; size: number };
}

const find = defineStatement(
  'items_find',
  (db: Kysely<Tables>, args: { id: string; owner: string | null }) =>
    db
      .selectFrom('items')
      .select(['id', 'owner as holder', 'size'])
      .where('id', '=', args.id)
      .where(sql<boolean>`(cast(${args.owner} as text) is null or owner = ${args.owner})`)
      .where('size', '>', 0),
  { packed: true },
);

describe('statement definitions: one Kysely query, compiled per dialect', () => {
  it('binds each placeholder to its argument by name, a repeated one at each place, constants as values', () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const { parameters } = find.compile(dialect);
      assert.deepEqual(
        parameters,
        [{ arg: 'id' }, { arg: 'owner' }, { arg: 'owner' }, { value: 0 }],
        dialect,
      );
    }
  });

  it("writes each dialect's placeholders", () => {
    assert.match(find.compile('sqlite').sql, /"id" = \? and \(cast\(\? as text\) is null or owner = \?\)/);
    assert.match(
      find.compile('postgres').sql,
      /"id" = \$1 and \(cast\(\$2 as text\) is null or owner = \$3\)/,
    );
  });

  it('packs a PostgreSQL select into one JSON array column, named by alias or column; SQLite selects as written', () => {
    const packed = find.compile('postgres');
    assert.match(packed.sql, /^select json_build_array\("id", "owner", "size"\) as "r" from "items"/);
    assert.deepEqual(packed.columns, ['id', 'holder', 'size']);
    const plain = find.compile('sqlite');
    assert.match(plain.sql, /^select "id", "owner" as "holder", "size" from "items"/);
    assert.equal(plain.columns, undefined);
  });

  it('refuses to pack what is not a select of named columns', () => {
    const upsert = defineStatement(
      'items_insert',
      (db: Kysely<Tables>, args: { id: string }) =>
        db.insertInto('items').values({ id: args.id, owner: null, size: 1 }).returningAll(),
      { packed: true },
    );
    assert.throws(() => upsert.compile('postgres'), /only a select can be packed/);
    const star = defineStatement(
      'items_all',
      (db: Kysely<Tables>, _args: { id: string }) => db.selectFrom('items').selectAll(),
      { packed: true },
    );
    assert.throws(() => star.compile('postgres'), /selects named columns only/);
  });
});
