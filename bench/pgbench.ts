/**
 * The database's ceiling: PostgreSQL's own pgbench runs our bookmark save and read statements (the text the
 * repository's Kysely queries compile to, src/client-api/bookmarks/repository.ts; queries/captured.postgres.sql)
 * on the same cluster and database as our run, over as many connections as our process gives them
 * (DATABASE_PIPELINE_CONNECTIONS), once one statement per round trip and once pipelined as ours are; the
 * scale report prints our rate as a fraction of each. pgbench's keys: user hashes '1'…'1000' and contents
 * 1…100 (the save writes them, then the read finds them).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';
/** Statements per pipeline in the pipelined run. */
const PIPELINE_DEPTH = 16;

/** The repository's two statements, as it sends them, with pgbench variables for their values. */
const statements = [
  {
    name: 'bookmark_save',
    text:
      'insert into "bookmarks" ("user_hash", "content_id", "account_number", "version", "offset_seconds", ' +
      '"position_at", "device_id", "device_class", "updated_at") values (:u, :c, :a, NULL, :o, :t, :dev, :dc, :t) ' +
      'on conflict ("user_hash", "content_id") do update set "account_number" = "excluded"."account_number", ' +
      '"version" = "excluded"."version", "offset_seconds" = "excluded"."offset_seconds", ' +
      '"position_at" = "excluded"."position_at", "device_id" = "excluded"."device_id", ' +
      '"device_class" = "excluded"."device_class", "updated_at" = "excluded"."updated_at" ' +
      'where "bookmarks"."position_at" <= "excluded"."position_at" returning *',
  },
  {
    name: 'bookmark_find',
    text: 'select * from "bookmarks" where "user_hash" = :u and "content_id" = :c',
  },
];

const keys = [
  '\\set u random(1, 1000)',
  '\\set c random(1, 100)',
  '\\set o random(0, 7199)',
  '\\set a 9000000 + :u',
];

function script(statement: { text: string }, depth: number): string {
  const text = `${statement.text};`;
  if (depth === 1) return `${keys.join('\n')}\n${text}\n`;
  const body = Array.from({ length: depth }, () => `${keys.join('\n')}\n${text}`);
  return `\\startpipeline\n${body.join('\n')}\n\\endpipeline\n`;
}

export interface PgbenchResult {
  statement: string;
  connections: number;
  pipelined: boolean;
  /** Statements per second. */
  rate: number;
}

/** pgbench on `url` for `seconds`: the save, then the read, each plain and pipelined. */
export async function runPgbench(
  url: string,
  connections: number,
  seconds: number,
): Promise<PgbenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sintonia-pgbench-'));
  const results: PgbenchResult[] = [];
  try {
    for (const statement of statements)
      for (const depth of [1, PIPELINE_DEPTH]) {
        const file = join(dir, `${statement.name}-${depth}.sql`);
        writeFileSync(file, script(statement, depth));
        const { stdout } = await run(PGBENCH, [
          '-n',
          '-M',
          'prepared',
          '-c',
          String(connections),
          '-j',
          String(Math.min(connections, 2)),
          '-T',
          String(seconds),
          '-D',
          `t=${Date.now()}`,
          '-D',
          'dev=bench-0000000-00',
          '-D',
          'dc=bench',
          '-f',
          file,
          url,
        ]);
        const tps = /tps = ([\d.]+)/.exec(stdout)?.[1];
        if (!tps) throw new Error(`pgbench printed no rate:\n${stdout}`);
        results.push({
          statement: statement.name,
          connections,
          pipelined: depth > 1,
          rate: Number(tps) * depth,
        });
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
