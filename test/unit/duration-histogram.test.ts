import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { installMetrics } from '../../src/core/http/metrics.ts';

/** What observe reads of a finished request. */
const finished = (url: string | undefined, method: string, statusCode: number, elapsedMs: number) =>
  [
    { routeOptions: { url }, method } as FastifyRequest,
    { statusCode, elapsedTime: elapsedMs } as FastifyReply,
  ] as const;

describe('the request-duration histogram, as Prometheus parsers read it', () => {
  it('counts each request in its bucket, cumulatively, with the sum, the count and every label', async () => {
    const metrics = installMetrics('client-api');
    for (const ms of [0.3, 3, 3, 7000]) metrics.observe(...finished('/bookmarks/:id', 'GET', 200, ms));
    metrics.observe(...finished(undefined, 'GET', 414, 1));
    const text = await metrics.registry.metrics();
    const family = parsePrometheusTextFormat(text).find((f) => f.name === 'http_request_duration_seconds');
    assert.equal(family?.type, 'HISTOGRAM');
    assert.equal(family?.help, 'Duration of HTTP requests by route template, method and status.');
    // The parser folds a histogram's labels away (series with the same buckets collapse), so each series'
    // lines are checked in the text: cumulative buckets, +Inf, sum and count.
    const cumulative: Array<[string, number]> = [
      ['0.0005', 1],
      ['0.001', 1],
      ['0.0025', 1],
      ['0.005', 3],
      ['0.01', 3],
      ['0.025', 3],
      ['0.05', 3],
      ['0.1', 3],
      ['0.25', 3],
      ['0.5', 3],
      ['1', 3],
      ['2.5', 3],
      ['5', 3],
      ['+Inf', 4],
    ];
    const readLabels = 'service="client-api",route="/bookmarks/:id",method="GET",status_code="200"';
    for (const [le, count] of cumulative) {
      assert.ok(
        text.includes(`http_request_duration_seconds_bucket{le="${le}",${readLabels}} ${count}\n`),
        le,
      );
    }
    const labels = 'service="client-api",route="/bookmarks/:id",method="GET",status_code="200"';
    assert.ok(text.includes(`http_request_duration_seconds_count{${labels}} 4\n`));
    assert.ok(text.includes(`http_request_duration_seconds_sum{${labels}} 7.0063\n`));
    assert.ok(
      text.includes(
        'http_request_duration_seconds_count{service="client-api",route="unmatched",method="GET",status_code="414"} 1',
      ),
    );
    // The JSON form carries each line's labels whole.
    const json = await metrics.registry.getMetricsAsJSON();
    const values = json.find((metric) => metric.name === 'http_request_duration_seconds')?.values ?? [];
    assert.ok(
      values.some(
        (value) => value.labels.le === '+Inf' && value.labels.route === '/bookmarks/:id' && value.value === 4,
      ),
    );
    metrics.registry.resetMetrics();
    assert.doesNotMatch(await metrics.registry.metrics(), /http_request_duration_seconds_count\{/);
  });
});
