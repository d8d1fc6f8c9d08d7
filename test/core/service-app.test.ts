import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import Type from 'typebox';
import { httpErrors } from '../../src/core/errors.ts';
import { requireApiKey } from '../../src/core/http/api-key-guard.ts';
import { withErrors } from '../../src/core/http/route-errors.ts';
import { type App, buildServiceApp, type ServiceDefinition, typed } from '../../src/core/http/service-app.ts';
import { createTestCore, suiteApp, type TestCore } from '../helpers/harness.ts';

/** A service with one route per behaviour of the shared plumbing. */
const probe: ServiceDefinition = {
  name: 'agents',
  async plugin(instance, { core }) {
    const app = typed(instance);
    app.post(
      '/echo',
      {
        schema: withErrors(
          {
            body: Type.Object({ name: Type.String({ maxLength: 5 }), count: Type.Integer({ minimum: 0 }) }),
            response: { 200: Type.Object({ name: Type.String(), count: Type.Integer() }) },
          },
          [],
        ),
      },
      async (request) => request.body,
    );
    app.get('/boom', async () => {
      throw new Error('SELECT secret FROM internals');
    });
    app.get('/teapot', async () => {
      throw httpErrors.RATE_LIMITED('Slow down.', { headers: { 'retry-after': '7' } });
    });
    app.get('/gated', { onRequest: requireApiKey(core.apiKeys, ['gateway']) }, async () => ({ ok: true }));
    app.get('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { done: true };
    });
  },
};

describe('service app plumbing', () => {
  const served = suiteApp(probe, [], { BODY_LIMIT: '2048' });

  it('answers an unknown route with 404 in the family body', async () => {
    const response = await served.app.inject({ method: 'GET', url: '/nowhere?token=abc' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), {
      code: 'NOT_FOUND',
      message: 'No operation at GET /nowhere.',
      errors: [{ type: 'ROUTE_NOT_FOUND', message: 'No operation at GET /nowhere.' }],
    });
  });

  it('answers malformed JSON with 400 MALFORMED_BODY', async () => {
    const response = await served.app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().code, 'BAD_REQUEST');
    assert.equal(response.json().errors[0].type, 'MALFORMED_BODY');
  });

  it('answers an oversize body with 413', async () => {
    const response = await served.app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(5000), count: 1 }),
    });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().code, 'PAYLOAD_TOO_LARGE');
    assert.equal(response.json().errors[0].type, 'BODY_TOO_LARGE');
  });

  it('answers an unsupported content type with 415', async () => {
    const response = await served.app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/x-nope' },
      payload: 'x',
    });
    assert.equal(response.statusCode, 415);
    assert.equal(response.json().errors[0].type, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('lists one validation error per failing field', async () => {
    const response = await served.app.inject({
      method: 'POST',
      url: '/echo',
      payload: { name: 'toolong', count: -1 },
    });
    assert.equal(response.statusCode, 400);
    const body = response.json();
    assert.equal(body.code, 'BAD_REQUEST');
    assert.equal(body.errors.length, 2);
    assert.ok(body.errors.every((error: { type: string }) => error.type === 'VALIDATION_ERROR'));
    assert.match(body.errors.map((error: { message: string }) => error.message).join('|'), /body\/name/);
    assert.match(body.errors.map((error: { message: string }) => error.message).join('|'), /body\/count/);
  });

  it('hides an unexpected exception behind a bare 500', async () => {
    const response = await served.app.inject({ method: 'GET', url: '/boom' });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), {
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred.',
      errors: [{ type: 'INTERNAL_ERROR', message: 'An unexpected error occurred.' }],
    });
    assert.doesNotMatch(response.body, /SELECT|internals|stack/);
  });

  it('renders a thrown ProblemError with its headers', async () => {
    const response = await served.app.inject({ method: 'GET', url: '/teapot' });
    assert.equal(response.statusCode, 429);
    assert.equal(response.headers['retry-after'], '7');
    assert.equal(response.json().code, 'TOO_MANY_REQUESTS');
  });

  it('keeps a sane x-request-id and replaces an unsafe one', async () => {
    const kept = await served.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    });
    assert.equal(kept.headers['x-request-id'], 'abc-123');
    const replaced = await served.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'a b<script>' },
    });
    assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('reports health and readiness with the database', async () => {
    const health = await served.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), {
      status: 'ok',
      service: 'agents',
      database: served.core.database.dialect,
    });
    const ready = await served.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
  });

  it('guards routes by key class: 401 without or with a bad key, 403 for another class', async () => {
    const gateway = await served.core.apiKeys.create('gateway', 'gw');
    const client = await served.core.apiKeys.create('client', 'cl');
    const none = await served.app.inject({ method: 'GET', url: '/gated' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().errors[0].type, 'CREDENTIALS_MISSING');
    const bad = await served.app.inject({
      method: 'GET',
      url: '/gated',
      headers: { 'x-api-key': 'snt_gateway_nope' },
    });
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().errors[0].type, 'API_KEY_INVALID');
    const wrong = await served.app.inject({
      method: 'GET',
      url: '/gated',
      headers: { 'x-api-key': client.key },
    });
    assert.equal(wrong.statusCode, 403);
    assert.equal(wrong.json().errors[0].type, 'ACCESS_DENIED');
    const ok = await served.app.inject({
      method: 'GET',
      url: '/gated',
      headers: { 'x-api-key': gateway.key },
    });
    assert.equal(ok.statusCode, 200);
    await served.core.apiKeys.revoke(gateway.id);
    const revoked = await served.app.inject({
      method: 'GET',
      url: '/gated',
      headers: { 'x-api-key': gateway.key },
    });
    assert.equal(revoked.statusCode, 401);
  });

  it('exposes Prometheus metrics that a standard parser reads, to any valid key', async () => {
    await served.app.inject({ method: 'GET', url: '/healthz' });
    await served.app.inject({
      method: 'GET',
      url: '/gated',
      headers: { 'x-api-key': 'snt_gateway_unknown' },
    });
    assert.equal((await served.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
    const key = (await served.core.apiKeys.create('client', 'scrape')).key;
    const response = await served.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { 'x-api-key': key },
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    const families = parsePrometheusTextFormat(response.body);
    const durations = families.find((family) => family.name === 'http_request_duration_seconds');
    assert.equal(durations?.type, 'HISTOGRAM', 'request-duration histogram present');
    // The parser folds histogram labels away, so the labelled series is checked in the text itself.
    assert.match(
      response.body,
      /http_request_duration_seconds_count\{[^}]*route="\/gated",method="GET",status_code="401"\} [1-9]/,
    );
    // Probes are counted apart, out of the API's histogram.
    assert.match(
      response.body,
      /sintonia_probe_requests_total\{route="\/healthz",status_code="200"[^}]*\} [1-9]/,
    );
    assert.ok(families.some((family) => family.name === 'process_cpu_user_seconds_total'));
  });
});

describe('liveness and readiness: what an orchestrator and a load balancer read', () => {
  let core: TestCore;
  let app: App;
  before(async () => {
    core = await createTestCore();
    app = await buildServiceApp(core, probe);
    await app.ready();
  });
  after(async () => {
    await app.close();
    // The store was closed by the test; the harness's own close of it may refuse a second one.
    await core.dispose().catch(() => {});
  });

  const checks = (response: { json(): unknown }) =>
    (response.json() as { errors: Array<{ type: string }> }).errors.map((item) => item.type);

  it('draining: /readyz 503 SHUTTING_DOWN, /healthz still 200', async () => {
    core.lifecycle.draining = true;
    try {
      const ready = await app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503, ready.body);
      assert.equal(ready.json().code, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(checks(ready), ['SHUTTING_DOWN']);
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    } finally {
      core.lifecycle.draining = false;
    }
    assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
  });

  it('a store that cannot answer: /readyz 503 STORE_UNAVAILABLE, /healthz still 200 (liveness never asks the store)', async () => {
    await core.database.close();
    const ready = await app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 503, ready.body);
    assert.deepEqual(checks(ready), ['STORE_UNAVAILABLE']);
    const health = await app.inject({ url: '/healthz' });
    assert.equal(health.statusCode, 200, health.body);
    assert.equal(health.json().status, 'ok');
  });
});
