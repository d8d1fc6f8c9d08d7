import { setTimeout as sleep } from 'node:timers/promises';
import { type RawBuilder, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { type PeriodicTask, periodic } from '../periodic.ts';
import type { Database } from './database.ts';

/**
 * One kind of row that stops being needed: a table, the columns that name a row, and the condition that
 * says a row is past its retention at a cutoff. docs/retention.md lists every rule and what else bounds
 * the tables that have none.
 */
export interface RetentionRule {
  /** For the log: `sessions (closed)`. */
  readonly name: string;
  readonly table: string;
  /** The row's key: the batch selects these, then deletes the rows they name. */
  readonly key: readonly string[];
  /** How long a row is kept once the condition's clock starts, in seconds; 0 keeps the rows forever. */
  readonly keepSeconds: number;
  /** The indexed time column the rule reads: a batch takes the oldest rows first, in its order. */
  readonly column: string;
  /** The rows past retention at `cutoff` (epoch ms); an index must back it (test/core/statement-plans). */
  readonly expired: (cutoff: number) => RawBuilder<unknown>;
}

export type RetentionSettings = Pick<
  Config,
  'RETENTION_INTERVAL' | 'RETENTION_BATCH_SIZE' | 'RETENTION_BATCH_PAUSE_MS' | 'AUDIT_RETENTION'
>;

/** The family's own table every service's job keeps bounded: the audit log, by the entry's time. */
export function coreRetentionRules(config: Pick<Config, 'AUDIT_RETENTION'>): RetentionRule[] {
  return [
    {
      name: 'audit_log',
      table: 'audit_log',
      key: ['id'],
      keepSeconds: config.AUDIT_RETENTION,
      column: 'at',
      expired: (cutoff) => sql`${sql.ref('at')} < ${cutoff}`,
    },
  ];
}

/**
 * One batch of a rule: at most `limit` rows, chosen through the rule's index and deleted by key in one
 * short statement, so no lock is held longer than one batch takes. Answers how many went. The oldest go
 * first: ordered by the indexed column, PostgreSQL walks that index; without the order it may choose to
 * read the table until it finds `limit` rows, which is the whole table when few are old.
 */
export async function removeBatch(
  database: Database,
  rule: RetentionRule,
  cutoff: number,
  limit: number,
): Promise<number> {
  const keys = sql.join(rule.key.map((column) => sql.ref(column)));
  const table = sql.table(rule.table);
  const batch = sql`select ${keys} from ${table} where ${rule.expired(cutoff)} order by ${sql.ref(rule.column)} limit ${sql.lit(limit)}`;
  // PostgreSQL: `= any(array(…))` takes the batch first and deletes its rows by key through the primary key;
  // with `in (…)` the planner may hash the batch against a read of the whole table.
  const single = rule.key.length === 1 && database.dialect === 'postgres';
  const target = rule.key.length === 1 ? keys : sql`(${keys})`;
  const result = await (single
    ? sql`delete from ${table} where ${keys} = any(array(${batch}))`
    : sql`delete from ${table} where ${target} in (${batch})`
  ).execute(database.db);
  return Number(result.numAffectedRows ?? 0n);
}

export interface RetentionPass {
  /** Rows removed per rule, only the rules that removed some. */
  removed: Record<string, number>;
  batches: number;
}

export interface RetentionJob extends PeriodicTask {
  /** One pass over every rule, each in batches until a batch comes back short; what the log reports. */
  runOnce(now?: number): Promise<RetentionPass>;
}

/**
 * The retention job of a service: every RETENTION_INTERVAL, each rule's expired rows go in batches of
 * RETENTION_BATCH_SIZE with RETENTION_BATCH_PAUSE_MS between them (other writers get the table between
 * two batches), and one log line says what went. The first pass starts with the service but does not
 * hold its start; stopping the service stops a pass between two batches.
 */
export function retentionJob(
  database: Database,
  rules: readonly RetentionRule[],
  settings: RetentionSettings,
  logger: Logger,
): RetentionJob {
  const active = rules.filter((rule) => rule.keepSeconds > 0);
  let stopped = false;
  const runOnce = async (now = Date.now()): Promise<RetentionPass> => {
    const pass: RetentionPass = { removed: {}, batches: 0 };
    for (const rule of active) {
      const cutoff = now - rule.keepSeconds * 1000;
      for (;;) {
        if (stopped) return pass;
        const removed = await removeBatch(database, rule, cutoff, settings.RETENTION_BATCH_SIZE);
        if (removed > 0) {
          pass.batches += 1;
          pass.removed[rule.name] = (pass.removed[rule.name] ?? 0) + removed;
        }
        if (removed < settings.RETENTION_BATCH_SIZE) break;
        if (settings.RETENTION_BATCH_PAUSE_MS > 0) await sleep(settings.RETENTION_BATCH_PAUSE_MS);
      }
    }
    return pass;
  };
  const task = periodic(
    async () => {
      const started = Date.now();
      const pass = await runOnce(started);
      if (pass.batches > 0)
        logger.info({ ...pass, ms: Date.now() - started }, 'retention: removed rows past their retention');
    },
    settings.RETENTION_INTERVAL * 1000,
    (error) => logger.warn({ err: error }, 'retention pass failed; retried at the next interval'),
    { background: true },
  );
  return {
    runOnce,
    async start() {
      stopped = false;
      await task.start();
    },
    stop() {
      stopped = true;
      task.stop();
    },
  };
}
