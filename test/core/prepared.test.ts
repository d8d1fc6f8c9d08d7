import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prepared } from '../../src/core/db/prepared.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

interface Entry {
  id: string;
  at: number;
  actor: string;
  action: string;
  subject: string;
}

describe('prepared queries (core/db/prepared.ts)', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  const append = () =>
    prepared<Entry, Entry>(core.database, (arg) =>
      core.database.db
        .insertInto('audit_log')
        .values({
          id: arg('id'),
          at: arg('at'),
          actor: arg('actor'),
          action: arg('action'),
          subject: arg('subject'),
        })
        .returningAll(),
    );
  const entry = (id: string, action = 'prepared.test'): Entry => ({
    id,
    at: 1,
    actor: 'test',
    action,
    subject: 's',
  });
  const stored = (id: string) =>
    core.database.db.selectFrom('audit_log').selectAll().where('id', '=', id).executeTakeFirst();

  it('runs with each call’s arguments by name; a value the query holds stays; an argument may be used twice', async () => {
    const insert = append();
    assert.deepEqual(await insert.first(entry('p-1')), entry('p-1'));
    assert.deepEqual(await insert.all(entry('p-2')), [entry('p-2')]);
    const byActionAndActor = prepared<{ action: string }, { id: string }>(core.database, (arg) =>
      core.database.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', arg('action'))
        .where('actor', '=', 'test')
        .where((eb) => eb.or([eb('subject', '=', arg('action')), eb('subject', '=', 's')]))
        .orderBy('id'),
    );
    assert.deepEqual(await byActionAndActor.all({ action: 'prepared.test' }), [{ id: 'p-1' }, { id: 'p-2' }]);
    assert.equal(await byActionAndActor.first({ action: 'nothing' }), undefined);
    assert.deepEqual(await stored('p-1'), entry('p-1'));
  });

  it('a failing statement rejects (never throws), and counts as a statement sent', async () => {
    const insert = append();
    await insert.first(entry('p-3'));
    const before = core.database.statistics.statements;
    let promise: Promise<unknown> | undefined;
    assert.doesNotThrow(() => {
      promise = insert.first(entry('p-3'));
    });
    await assert.rejects(promise as Promise<unknown>, /UNIQUE|unique|duplicate/);
    assert.ok(core.database.statistics.statements > before);
  });

  it('does not join a transaction that holds the connection: it is kept when that transaction rolls back', async () => {
    const insert = append();
    let during: Promise<unknown> | undefined;
    await assert.rejects(
      core.database.db.transaction().execute(async (trx) => {
        await trx.insertInto('audit_log').values(entry('p-rolled-back')).execute();
        // Another request's save, while this transaction is open between two of its statements.
        during = insert.first(entry('p-kept'));
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await during, entry('p-kept'));
    assert.equal(await stored('p-rolled-back'), undefined);
    assert.deepEqual(await stored('p-kept'), entry('p-kept'));
  });
});
