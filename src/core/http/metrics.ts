import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface ServiceMetrics {
  registry: Registry;
  /** Records one finished request; called from the app's single onResponse hook. */
  observe(request: FastifyRequest, reply: FastifyReply): void;
}

/** One registry per service: process metrics plus the request-duration histogram by route template. */
export function installMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests by route template, method and status.',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // The labelled series by route, method and status: prom-client hashes the label object on every
  // observe (~2 µs under load in the benchmark); a string key is cheaper. Routes are templates, so the set is small.
  const series = new Map<string, ReturnType<typeof duration.labels>>();
  return {
    registry,
    observe(request, reply) {
      const route = request.routeOptions.url ?? 'unmatched';
      const status = String(reply.statusCode);
      const key = `${status} ${request.method} ${route}`;
      let labelled = series.get(key);
      if (labelled === undefined) {
        labelled = duration.labels({ route, method: request.method, status_code: status });
        series.set(key, labelled);
      }
      labelled.observe(reply.elapsedTime / 1000);
    },
  };
}
