// Writes queries/<service>.<dialect>.sql: every statement compiled per dialect (src/core/db/statement.ts), as
// each dialect runs it, so that a reviewer reads the SQL and sees a change to it in the diff. `--check`
// writes nothing and exits 1 when a file differs from what the sources compile to (the test runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientApiStatements } from '../src/client-api/statements.ts';
import { renderStatements } from '../src/core/db/statement-snapshot.ts';

const root = new URL('..', import.meta.url).pathname;
const check = process.argv.includes('--check');
const files = renderStatements({ 'client-api': clientApiStatements });
let stale = 0;
for (const [name, text] of Object.entries(files)) {
  const path = join(root, 'queries', name);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {}
  if (current === text) continue;
  if (check) {
    stale += 1;
    process.stderr.write(`queries/${name} differs from what the sources compile to: run npm run queries\n`);
  } else {
    writeFileSync(path, text);
    process.stdout.write(`wrote queries/${name}\n`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
