import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PIPELINE_CLOSED } from '../../src/core/db/pipeline.ts';
import { isStoreUnavailable } from '../../src/core/db/unavailable.ts';
import { toProblem } from '../../src/core/http/error-handler.ts';

/** An error as node-postgres, pg-pool, Node's net or better-sqlite3 throws it. */
const failure = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('a store that cannot answer is 503 STORE_UNAVAILABLE, not 500', () => {
  const unavailable = [
    failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    failure('read ECONNRESET', 'ECONNRESET'),
    failure('terminating connection due to administrator command', '57P01'),
    failure('the database system is starting up', '57P03'),
    failure('sorry, too many clients already', '53300'),
    failure('connection failure', '08006'),
    failure('Connection terminated unexpectedly'),
    failure('Connection terminated due to connection timeout'),
    failure('timeout exceeded when trying to connect'),
    failure('Client has encountered a connection error and is not queryable'),
    failure(PIPELINE_CLOSED),
    failure('database is locked', 'SQLITE_BUSY'),
  ];
  for (const error of unavailable) {
    it(`${error.message}: 503 with Retry-After`, () => {
      assert.equal(isStoreUnavailable(error), true);
      const { problem, unexpected } = toProblem(error);
      assert.equal(unexpected, false);
      assert.equal(problem.status, 503);
      assert.deepEqual(problem.headers, { 'retry-after': '1' });
      assert.deepEqual(problem.toBody(), {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The database cannot be reached right now; retry shortly.',
        errors: [
          { type: 'STORE_UNAVAILABLE', message: 'The database cannot be reached right now; retry shortly.' },
        ],
      });
    });
  }

  const faults = [
    failure('duplicate key value violates unique constraint "bookmarks_pkey"', '23505'),
    failure('division by zero', '22012'),
    failure('syntax error at or near "selec"', '42601'),
    failure('UNIQUE constraint failed: users.email', 'SQLITE_CONSTRAINT_UNIQUE'),
    new TypeError("Cannot read properties of undefined (reading 'rows')"),
    'a thrown string',
    undefined,
  ];
  for (const error of faults) {
    it(`${error instanceof Error ? error.message : String(error)}: still an unexpected 500`, () => {
      assert.equal(isStoreUnavailable(error), false);
      const { problem, unexpected } = toProblem(error);
      assert.deepEqual([problem.status, unexpected], [500, true]);
    });
  }
});
