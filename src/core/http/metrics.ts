import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, type Histogram, Registry } from 'prom-client';
import type { Core } from '../core.ts';
import { authErrors } from '../errors.ts';
import { requireScrapeKey } from './api-key-guard.ts';
import { problemTypeOf } from './error-handler.ts';
import { withErrors } from './route-errors.ts';

/** The routes of probes and scrapes: out of the request histogram and the info log, counted on their own. */
const PROBE_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

export function isProbe(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return route !== undefined && PROBE_ROUTES.has(route);
}

export interface ServiceMetrics {
  registry: Registry;
  /** Records one finished request; called from the app's single onResponse hook. */
  observe(request: FastifyRequest, reply: FastifyReply): void;
}

const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

type DurationLabels = { route: string; method: string; status_code: string };

interface Series {
  labels: DurationLabels;
  /** Observations per bucket (not cumulative); the last slot is +Inf's. */
  counts: number[];
  sum: number;
  count: number;
}

/** The map `outer` holds at `key`, made empty on first use. */
function inner<K, K2, V>(outer: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let map = outer.get(key);
  if (map === undefined) {
    map = new Map();
    outer.set(key, map);
  }
  return map;
}

/**
 * The request-duration histogram, by route template, method and status. prom-client's Histogram hashes
 * the label object (and validates it) on every observe, that is on every request;
 * here a series is found with no string built and an observation is two additions. It answers prom-client's
 * metric interface (get, getForPromString, reset), so the registry renders it as it renders its own
 * histograms, default labels included.
 */
class DurationHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'Duration of HTTP requests by route template, method and status.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /**
   * By route, method and status: three lookups, of strings made once (the route's template, the parser's
   * method) and of a number.
   */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  private readonly series: Series[] = [];

  observe(route: string, method: string, statusCode: number, seconds: number): void {
    const byStatus = inner(inner(this.byRoute, route), method);
    let series = byStatus.get(statusCode);
    if (series === undefined) {
      series = {
        labels: { route, method, status_code: String(statusCode) },
        counts: new Array(DURATION_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byStatus.set(statusCode, series);
      this.series.push(series);
    }
    let bucket = 0;
    while (
      bucket < DURATION_BUCKETS.length &&
      seconds > (DURATION_BUCKETS[bucket] ?? Number.POSITIVE_INFINITY)
    )
      bucket++;
    series.counts[bucket] = (series.counts[bucket] ?? 0) + 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** As prom-client's histograms answer it for the text format: the series' labels shared by its lines. */
  getForPromString() {
    const name = this.name;
    const values = this.series.flatMap((series) => {
      let cumulative = 0;
      const buckets = DURATION_BUCKETS.map((le, index) => {
        cumulative += series.counts[index] ?? 0;
        return {
          labels: { le },
          value: cumulative,
          metricName: `${name}_bucket`,
          sharedLabels: series.labels,
        };
      });
      return [
        ...buckets,
        {
          labels: { le: '+Inf' },
          value: series.count,
          metricName: `${name}_bucket`,
          sharedLabels: series.labels,
        },
        { labels: {}, value: series.sum, metricName: `${name}_sum`, sharedLabels: series.labels },
        { labels: {}, value: series.count, metricName: `${name}_count`, sharedLabels: series.labels },
      ];
    });
    return { name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The JSON form (registry.getMetricsAsJSON): each line's labels whole. */
  get() {
    const metric = this.getForPromString();
    return {
      ...metric,
      values: metric.values.map(({ sharedLabels, labels, ...value }) => ({
        ...value,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }

  reset(): void {
    this.byRoute.clear();
    this.series.length = 0;
  }
}

/**
 * One registry per service: process metrics, the request-duration histogram by route template, and the
 * error answers by their type (STORE_UNAVAILABLE, LOGIN_THROTTLED…), counted only when one is sent.
 */
export function installMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool refuses them); sum(nodejs_active_handles) etc. say the same.
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ])
    registry.removeSingleMetric(name);
  const duration = new DurationHistogram();
  // prom-client types registerMetric by its own four classes; it calls only what DurationHistogram has.
  registry.registerMetric(duration as unknown as Histogram);
  const problems = new Counter({
    name: 'sintonia_problem_responses_total',
    help: 'Answers in the family error body, by their type (errors[0].type: STORE_UNAVAILABLE, RATE_LIMITED…) and status.',
    labelNames: ['type', 'status_code'],
    registers: [registry],
  });
  const probes = new Counter({
    name: 'sintonia_probe_requests_total',
    help: 'Probes and scrapes answered (/healthz, /readyz, /metrics), by route and status; not in http_request_duration_seconds.',
    labelNames: ['route', 'status_code'],
    registers: [registry],
  });
  return {
    registry,
    observe(request, reply) {
      const { statusCode } = reply;
      if (isProbe(request)) probes.inc({ route: request.routeOptions.url, status_code: statusCode });
      else
        duration.observe(
          request.routeOptions.url ?? 'unmatched',
          request.method,
          statusCode,
          reply.elapsedTime / 1000,
        );
      if (statusCode >= 400) {
        const type = problemTypeOf(reply);
        if (type !== undefined) problems.inc({ type, status_code: statusCode });
      }
    },
  };
}

/**
 * `GET /metrics`, the registry in Prometheus' text format. SPEC's public access on every service: any
 * valid key of the environment, also as a bearer credential (Prometheus' credentials_file); open only when
 * the operator says so (METRICS_OPEN=1; docs/decisions-observability.md).
 */
export function registerMetricsRoute(app: FastifyInstance, core: Core, registry: Registry): void {
  const metricsOpen = core.config.METRICS_OPEN === '1';
  app.get(
    '/metrics',
    {
      ...(metricsOpen ? {} : { onRequest: requireScrapeKey(core.apiKeys) }),
      schema: withErrors(
        {
          summary: metricsOpen
            ? 'Prometheus metrics (text exposition format); open (METRICS_OPEN=1).'
            : 'Prometheus metrics (text exposition format); any valid API key, as X-API-Key or Authorization: Bearer <key>.',
          tags: ['monitoring'],
          produces: ['text/plain'],
          ...(metricsOpen ? {} : { security: [{ apiKey: [] }] }),
          // A string payload of a non-JSON type is sent as it is: the schema only documents it.
          response: { 200: { type: 'string', description: 'Prometheus text exposition format.' } },
        },
        metricsOpen ? [] : [authErrors.CREDENTIALS_MISSING, authErrors.API_KEY_INVALID],
      ),
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );
}
