/**
 * The database's ceiling: PostgreSQL's own pgbench runs our exact bookmark save and read statements (as
 * compiled for the hot paths, src/client-api/bookmarks/statements.ts) on the same cluster and database as
 * our run, over as many connections as our process gives those statements (DATABASE_PIPELINE_CONNECTIONS),
 * once one statement per round trip and once pipelined as ours are; the scale report prints our rate as a
 * fraction of each. pgbench's keys: user hashes '1'…'1000' and contents 1…100 (the save writes them, then
 * the read finds them), the session one of ours signed in; the arguments our paths leave null (version,
 * and the read's account filter) are written NULL into the text.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { bookmarkFindInSession, bookmarkSaveInOpenSession } from '../src/client-api/bookmarks/statements.ts';
import type { NamedStatement } from '../src/core/db/statement.ts';

const run = promisify(execFile);
export const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';
/** Statements per pipeline in the pipelined run. */
const PIPELINE_DEPTH = 16;

/** What each named argument of the two statements becomes in pgbench's script. */
const argumentText: Record<string, string> = {
  sessionId: ':sid',
  userHash: ':u',
  user_hash: ':u',
  contentId: ':c',
  content_id: ':c',
  accountNumber: 'NULL',
  account_number: ':a',
  version: 'NULL',
  offset_seconds: ':o',
  position_at: ':t',
  updated_at: ':t',
  device_id: ':dev',
  device_class: ':dc',
  idleBefore: '0',
};

/** The statement's PostgreSQL text with pgbench variables for its placeholders, on one line. */
export function pgbenchText(statement: NamedStatement): string {
  const { sql, parameters } = statement.compile('postgres');
  let text = sql;
  for (let index = parameters.length; index >= 1; index--) {
    const parameter = parameters[index - 1];
    const replacement =
      parameter && 'arg' in parameter ? argumentText[parameter.arg] : JSON.stringify(parameter?.value);
    if (replacement === undefined) throw new Error(`pgbench: no value for ${JSON.stringify(parameter)}`);
    text = text.replaceAll(`$${index}`, replacement);
  }
  return text.replace(/\s+/g, ' ');
}

const keys = [
  '\\set u random(1, 1000)',
  '\\set c random(1, 100)',
  '\\set o random(0, 7199)',
  '\\set a 9000000 + :u',
];

function script(statement: NamedStatement, depth: number): string {
  const text = `${pgbenchText(statement)};`;
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
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let sessionId: string | undefined;
  try {
    const { rows } = await client.query<{ id: string }>(
      'select id from sessions where closed_at is null limit 1',
    );
    sessionId = rows[0]?.id;
  } finally {
    await client.end();
  }
  if (!sessionId) throw new Error('pgbench: no open session to run the statements in');
  const dir = mkdtempSync(join(tmpdir(), 'sintonia-pgbench-'));
  const results: PgbenchResult[] = [];
  try {
    for (const statement of [bookmarkSaveInOpenSession, bookmarkFindInSession])
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
          `sid=${sessionId}`,
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
