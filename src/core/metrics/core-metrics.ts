import { Counter, Gauge, type Registry } from 'prom-client';
import type { KeyClass } from '../api-keys/api-keys.ts';
import type { Database } from '../db/database.ts';
import type { StatementPipeline } from '../db/pipeline.ts';

/**
 * What the core measures for every service of the process: the store and the API keys' request limits.
 * They are the process's, not one service's: a process serving several services shows the same figures
 * on each one's /metrics (docs/observability.md says how to sum them).
 */
export interface CoreMetrics {
  /** An API key's request refused, over its class's limit (429 RATE_LIMITED). */
  apiKeyRateLimited(keyClass: KeyClass): void;
  /** A request refused at one of the bounds of docs/limits.md, named by its `limit` label there. */
  limitRefused(limit: string): void;
  /** Adds these metrics to a service's registry. */
  register(registry: Registry): void;
}

/** The store's figures are read when Prometheus scrapes, from counters the store keeps: nothing on the request path. */
export function createCoreMetrics(database: Database): CoreMetrics {
  const rateLimited = new Counter({
    name: 'sintonia_api_key_rate_limited_requests_total',
    help: 'Requests refused because their API key went over its class limit (429 RATE_LIMITED), by key class.',
    labelNames: ['key_class'],
    registers: [],
  });
  const statements = new Counter({
    name: 'sintonia_store_statements_total',
    help: 'Statements this process sent to the store (SQLite or PostgreSQL); rate() gives statements per second.',
    registers: [],
    collect() {
      this.reset();
      this.inc(database.statistics.statements);
    },
  });
  const refused = new Counter({
    name: 'sintonia_limit_refusals_total',
    help: 'Requests or turns refused at a bound of docs/limits.md, by limit (the table’s `limit` column).',
    labelNames: ['limit'],
    registers: [],
  });
  const metrics: Array<Counter | Gauge> = [rateLimited, statements, refused];
  const pool = database.postgres;
  if (pool !== undefined) {
    metrics.push(
      new Gauge({
        name: 'sintonia_store_pool_connections',
        help: 'Connections of the PostgreSQL pool (DATABASE_POOL_SIZE), by state: in_use or idle.',
        labelNames: ['state'],
        registers: [],
        collect() {
          this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
          this.set({ state: 'idle' }, pool.idleCount);
        },
      }),
      new Gauge({
        name: 'sintonia_store_pool_waiting_requests',
        help: 'Requests for a PostgreSQL pool connection waiting because every connection is in use.',
        registers: [],
        collect() {
          this.set(pool.waitingCount);
        },
      }),
    );
  }
  const pipelines = database.pipelines;
  if (pipelines !== undefined) {
    const each = (gauge: Gauge<'pipeline'>, value: (pipeline: StatementPipeline) => number) => {
      gauge.set({ pipeline: 'reads' }, value(pipelines.reads));
      gauge.set({ pipeline: 'writes' }, value(pipelines.writes));
    };
    metrics.push(
      new Gauge({
        name: 'sintonia_store_pipeline_depth_statements',
        help: "Statements sent on the pipelined PostgreSQL connections and not yet answered (DATABASE_PIPELINE_CONNECTIONS), by pipeline: reads, or writes (with their turns' begin and commit).",
        labelNames: ['pipeline'],
        registers: [],
        collect() {
          each(this, (pipeline) => pipeline.inFlight);
        },
      }),
      new Gauge({
        name: 'sintonia_store_pipeline_connections',
        help: 'Pipelined PostgreSQL connections open now, by pipeline: reads or writes.',
        labelNames: ['pipeline'],
        registers: [],
        collect() {
          each(this, (pipeline) => pipeline.connections);
        },
      }),
    );
  }
  return {
    apiKeyRateLimited(keyClass) {
      rateLimited.inc({ key_class: keyClass });
    },
    limitRefused(limit) {
      refused.inc({ limit });
    },
    register(registry) {
      for (const metric of metrics) registry.registerMetric(metric);
    },
  };
}

/**
 * A figure that costs a store query, for a gauge's collect: asked at most once per `maxAgeMs` (and once at
 * a time), so many scrapers, or one scraping often, cost the store one query per period.
 */
export function scrapeCache<T>(read: () => Promise<T>, maxAgeMs: number): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (last === undefined || now - last.at >= maxAgeMs) {
      const value = read();
      last = { at: now, value };
      // A failed read is not kept: the next scrape asks again.
      value.catch(() => {
        if (last?.value === value) last = undefined;
      });
    }
    return last.value;
  };
}
