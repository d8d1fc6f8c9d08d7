/**
 * The database's ceiling (docs/benchmarks.md): PostgreSQL's own pgbench (`/usr/bin/pgbench`, or PGBENCH)
 * runs the bare baseline's read and upsert, its very text, prepared, one statement per round trip.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { statements } from './bare-server.ts';
import { maxContent, type Shape } from './dataset.ts';

const run = promisify(execFile);
const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';

const user = (prefix: string) => `'${prefix}' || lpad(:u::text, 7, '0')`;
/** What each placeholder of the bare statements becomes in pgbench's script. */
const values = {
  read: [user('h'), ':c'],
  upsert: [user('h'), ':c', user('9'), `${user('bench-')} || '-00'`, "'bench'", ':o', ':t', ':t'],
};

/** A statement's rate: statements per second over `connections`. */
export type PgbenchRate = { statement: 'read' | 'upsert'; connections: number; rate: number };

/** The statement's text with pgbench's variables in its placeholders, on one line. */
function pgbenchText(name: keyof typeof values): string {
  const given = values[name];
  return statements[name]
    .replace(/\$(\d+)/g, (_, index: string) => given[Number(index) - 1] ?? '')
    .replace(/\s+/g, ' ');
}

export async function runPgbench(url: string, shape: Shape, connections: number, seconds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sintonia-pgbench-'));
  const users = `\\set u random(0, ${shape.users - 1})`;
  const keys = `${users}\n\\set c random(1, ${maxContent(shape)})\n\\set o random(0, 7199)`;
  try {
    const rates: PgbenchRate[] = [];
    for (const statement of ['read', 'upsert'] as const) {
      const file = join(dir, `${statement}.sql`);
      writeFileSync(file, `${keys}\n${pgbenchText(statement)};\n`);
      const threads = String(Math.min(connections, 2));
      const args = ['-n', '-M', 'prepared', '-c', String(connections), '-j', threads, '-T', String(seconds)];
      const { stdout } = await run(PGBENCH, [...args, '-D', `t=${Date.now()}`, '-f', file, url]);
      const tps = /tps = ([\d.]+)/.exec(stdout)?.[1];
      if (!tps) throw new Error(`pgbench printed no rate:\n${stdout}`);
      rates.push({ statement, connections, rate: Number(tps) });
    }
    return rates;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
