// Preloaded (`node --import ./scripts/statement-capture.mjs`) by scripts/capture-statements.mjs into every
// process of a test run: records each distinct SQL text the process sends to PostgreSQL (node-postgres,
// the pool and the pipelined connections alike) or prepares on SQLite (better-sqlite3), one JSON line per
// statement in $SINTONIA_CAPTURE_SQL/<pid>.jsonl. Only statements the product issues count: one whose
// call stack (async frames included) passes through src/ or dist/, not one a test sends itself to set up or
// to look. The database plumbing every statement passes through (core/db's pipeline, its Kysely driver,
// SQLite's prepared statements, prepared queries) does not count as the product: a test's own `core.db`
// query goes through it too. The product's code is untouched.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.env.SINTONIA_CAPTURE_SQL;
if (dir) {
  const require = createRequire(import.meta.url);
  const file = join(dir, `${process.pid}.jsonl`);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const product = [join(root, 'src/'), join(root, 'dist/')];
  const seen = new Set();
  const fromProduct = () => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 80;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    return stack
      .split('\n')
      .some(
        (frame) =>
          product.some((folder) => frame.includes(folder)) &&
          !/core\/db\/(pipeline|pipelined-driver|sqlite-statements|prepared)\.[jt]s/.test(frame),
      );
  };
  const record = (dialect, text) => {
    if (typeof text !== 'string') return;
    const key = `${dialect} ${text}`;
    if (seen.has(key) || !fromProduct()) return;
    seen.add(key);
    appendFileSync(file, `${JSON.stringify({ dialect, sql: text })}\n`);
  };
  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function capturedQuery(config, ...rest) {
    record('postgres', typeof config === 'string' ? config : config?.text);
    return query.call(this, config, ...rest);
  };
  const SQLite = require('better-sqlite3');
  const prepare = SQLite.prototype.prepare;
  SQLite.prototype.prepare = function capturedPrepare(text, ...rest) {
    record('sqlite', text);
    return prepare.call(this, text, ...rest);
  };
}
