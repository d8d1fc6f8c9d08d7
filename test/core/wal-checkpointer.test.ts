import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Database, openDatabase } from '../../src/core/db/database.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The embedded store's WAL is checkpointed by a thread of its own, never by a statement of the serving
 * connection (whose checkpoint held the event loop for tens of milliseconds under writes).
 */
describe('SQLite WAL checkpoints off the event loop', () => {
  let dir: string;
  let database: Database;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sintonia-wal-'));
    database = openDatabase({
      DATABASE_URL: undefined,
      DATABASE_POOL_SIZE: 10,
      DATABASE_PIPELINE_CONNECTIONS: 2,
      SINTONIA_DATA_DIR: dir,
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a server-lived process hands its checkpoints to the checkpointer, which copies the WAL back', async () => {
    const sqlite = database.sqlite;
    assert.ok(sqlite);
    assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 1000, 'at first, SQLite’s own');
    await sleep(1300);
    // The serving connection now checkpoints only past its backstop.
    assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 50_000);
    sqlite.exec('create table filler (id integer primary key, data blob)');
    const insert = sqlite.prepare('insert into filler (data) values (randomblob(3000))');
    // About 1500 pages in one commit: past SQLite's default threshold, far below the backstop.
    sqlite.transaction(() => {
      for (let index = 0; index < 2000; index++) insert.run();
    })();
    const file = join(dir, 'sintonia.sqlite');
    const before = statSync(file).size;
    let copied = before;
    for (let waited = 0; waited < 3000 && copied < before + 4_000_000; waited += 100) {
      await sleep(100);
      copied = statSync(file).size;
    }
    assert.ok(copied >= before + 4_000_000, `the database file grew from ${before} to ${copied} bytes`);
  });

  it('closes with its checkpointer', async () => {
    await database.close();
  });
});
