// What scripts/statement-capture.mjs recorded in a folder, read back: each distinct data statement the
// product issued, by dialect. Used by `npm run queries` (which writes queries/captured.*.sql) and by
// the test command, whose statement-plans test also plans every statement the run's own tests issued.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Dialect → the statements, one text per shape (the shortest seen), sorted. */
export function readCaptured(dir) {
  const byDialect = { postgres: new Map(), sqlite: new Map() };
  if (!dir || !existsSync(dir)) return { postgres: [], sqlite: [] };
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const { dialect, sql } = JSON.parse(line);
      // An epoch-millisecond literal (a query built around the current time) is written as 0: the plan is
      // the same, and the file does not change with the hour of the capture.
      const text = sql
        .replace(/\s+/g, ' ')
        .trim()
        .replace(/\b\d{13}\b/g, '0');
      if (!isDataStatement(text)) continue;
      const key = shape(text);
      const kept = byDialect[dialect].get(key);
      if (kept === undefined || text.length < kept.length) byDialect[dialect].set(key, text);
    }
  }
  return {
    postgres: [...byDialect.postgres.values()].sort(),
    sqlite: [...byDialect.sqlite.values()].sort(),
  };
}

/** Reads and writes of the tables: not DDL, transactions, catalogue reads or the migrator's own tables. */
function isDataStatement(text) {
  if (!/^(select|insert|update|delete|with)\b/i.test(text)) return false;
  // Without a table (a test's own `select $1::int as n` through the product's pipeline) there is no plan to check.
  if (!/\b(from|into|update)\s+"?[a-z_]/i.test(text)) return false;
  return !/kysely_migration|pg_catalog|information_schema|sqlite_master|pragma_|pg_class|pg_namespace|\bpg_[a-z_]+\(/i.test(
    text,
  );
}

/** A statement's shape: spaces, placeholders alike, a multi-row VALUES or an IN list of any length as one. */
export function shape(text) {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\$\d+/g, '?')
    .replace(/\((\?, )*\?\)(, \((\?, )*\?\))+/g, '(?…)')
    .replace(/ in \((\?, )*\?\)/gi, ' in (?…)')
    .replace(/ limit \d+/gi, ' limit ?');
}
