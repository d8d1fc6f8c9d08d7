import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildServiceApp, type ServiceDefinition } from '../../src/core/http/service-app.ts';
import { capturingLogger, createTestCore, type TestCore } from '../helpers/harness.ts';

const probe: ServiceDefinition = {
  name: 'agents',
  async plugin(app) {
    app.get('/hello', async (request) => {
      request.log.info('inside the handler');
      return { hello: 'world' };
    });
    app.get('/items/:id', async (request) => request.params);
    app.get('/quiet', { logLevel: 'warn' }, async (request) => {
      request.log.info('below the route level');
      request.log.warn('at the route level');
      return { quiet: true };
    });
  },
};

describe('request logging options', () => {
  let core: TestCore;
  let app: App;
  let logs: Array<Record<string, unknown>> = [];
  const warnings: Array<{ name: string; code?: string; message: string }> = [];
  const onWarning = (warning: Error & { code?: string }) => warnings.push(warning);
  before(async () => {
    process.on('warning', onWarning);
    core = await createTestCore();
    const captured = capturingLogger();
    logs = captured.lines;
    app = await buildServiceApp({ ...core, logger: captured.logger }, probe);
    await app.ready();
    // process.emitWarning reports on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  });
  after(async () => {
    process.off('warning', onWarning);
    await app.close();
    await core.dispose();
  });

  it('building an app prints no Fastify deprecation warning (FSTDEP0xx)', () => {
    const fastifyWarnings = warnings.filter((warning) => /^FST/.test(warning.code ?? ''));
    assert.deepEqual(
      fastifyWarnings.map((warning) => `${warning.code}: ${warning.message}`),
      [],
    );
  });

  it('every line of a request carries its id as requestId, and Fastify writes no request lines of its own', async () => {
    const response = await app.inject({ method: 'GET', url: '/hello', headers: { 'x-request-id': 'log-1' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-request-id'], 'log-1');
    const lines = logs.filter((entry) => entry.requestId === 'log-1');
    assert.ok(
      lines.some((entry) => entry.msg === 'inside the handler'),
      'the handler’s line',
    );
    assert.ok(
      logs.every((entry) => !('reqId' in entry)),
      'no reqId label',
    );
    assert.ok(
      lines.every((entry) => entry.msg !== 'incoming request'),
      'no Fastify "incoming request" line',
    );
    // One line at the end with the status (the app's own), not Fastify's pair.
    const withStatus = lines.filter((entry) => entry.statusCode !== undefined);
    assert.equal(withStatus.length, 1, JSON.stringify(lines));
    assert.deepEqual(
      { ...withStatus[0], time: undefined, pid: undefined, hostname: undefined, responseTime: undefined },
      {
        level: 30,
        time: undefined,
        pid: undefined,
        hostname: undefined,
        service: 'agents',
        requestId: 'log-1',
        method: 'GET',
        url: '/hello',
        statusCode: 200,
        responseTime: undefined,
        msg: 'request completed',
      },
    );
    assert.equal(typeof withStatus[0]?.responseTime, 'number');
  });

  it("a route's logLevel holds for its request logger and silences its request line", async () => {
    const response = await app.inject({ method: 'GET', url: '/quiet', headers: { 'x-request-id': 'log-q' } });
    assert.equal(response.statusCode, 200);
    const lines = logs.filter((entry) => entry.requestId === 'log-q');
    assert.deepEqual(
      lines.map((entry) => [entry.level, entry.msg]),
      [[40, 'at the route level']],
    );
  });

  it('a request without a usable id gets a new UUID-shaped one, different every time', async () => {
    const ids = new Set<string>();
    for (let index = 0; index < 20; index++) {
      const response = await app.inject({ method: 'GET', url: '/hello' });
      const id = String(response.headers['x-request-id']);
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      ids.add(id);
      assert.ok(logs.some((entry) => entry.requestId === id && entry.msg === 'inside the handler'));
    }
    assert.equal(ids.size, 20);
  });

  it('the request line carries no credentials: no headers, query values masked', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/hello?token=s3cret-token&page=2',
      headers: { 'x-request-id': 'log-2', authorization: 'Bearer s3cret-bearer', 'x-api-key': 's3cret-key' },
    });
    assert.equal(response.statusCode, 200);
    const line = logs.find((entry) => entry.requestId === 'log-2' && entry.msg === 'request completed');
    assert.equal(line?.url, '/hello?token=…&page=…');
    const all = JSON.stringify(logs);
    for (const secret of ['s3cret-token', 's3cret-bearer', 's3cret-key'])
      assert.ok(!all.includes(secret), secret);
  });

  it('an e-mail address in the path is masked in the request line, as sent or percent-encoded', async () => {
    const urls = {
      'log-e1': ['/items/alice@example.test', '/items/…@…'],
      'log-e2': ['/items/alice.b%40example.test?email=bob@example.test', '/items/…@…?email=…'],
    };
    for (const [requestId, [url, logged]] of Object.entries(urls)) {
      const response = await app.inject({
        method: 'GET',
        url: String(url),
        headers: { 'x-request-id': requestId },
      });
      assert.equal(response.statusCode, 200);
      const line = logs.find((entry) => entry.requestId === requestId && entry.msg === 'request completed');
      assert.equal(line?.url, logged);
    }
    const all = JSON.stringify(logs);
    for (const address of ['alice', 'bob@']) assert.ok(!all.includes(address), address);
  });

  it('a path the router refuses itself (414) still gets its one request line and its histogram sample', async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/items/${'x'.repeat(5000)}`,
      headers: { 'x-request-id': 'log-414' },
    });
    assert.equal(response.statusCode, 414);
    assert.equal(response.headers['x-request-id'], 'log-414');
    assert.equal(response.json().errors[0].type, 'PATH_TOO_LONG');
    const lines = logs.filter((entry) => entry.requestId === 'log-414' && entry.msg === 'request completed');
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]?.statusCode, 414);
    const metrics = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { 'x-api-key': (await core.apiKeys.create('backoffice', 'scrape')).key },
    });
    assert.match(
      metrics.body,
      /http_request_duration_seconds_count\{[^}]*route="unmatched"[^}]*status_code="414"[^}]*\} 1/,
    );
  });
});

describe('probes and scrapes are quiet', () => {
  const probes = ['/healthz', '/readyz', '/metrics'];

  /** An app logging at `level`, asked each probe twice and /hello once; its log lines and its /metrics. */
  async function probed(level: 'info' | 'debug') {
    const core = await createTestCore();
    const captured = capturingLogger(level);
    const app = await buildServiceApp({ ...core, logger: captured.logger }, probe);
    try {
      const key = (await core.apiKeys.create('backoffice', 'scrape')).key;
      for (const url of [...probes, ...probes, '/hello']) {
        const response = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        assert.equal(response.statusCode, 200, url);
      }
      const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': key } });
      const requestLines = captured.lines.filter((line) => line.msg === 'request completed');
      return { requestLines, metrics: metrics.body };
    } finally {
      await app.close();
      await core.dispose();
    }
  }

  it('at info: no request line and no request-duration sample for a probe; a counter of their own', async () => {
    const { requestLines, metrics } = await probed('info');
    assert.deepEqual(
      requestLines.map((line) => line.url),
      ['/hello'],
    );
    assert.match(metrics, /http_request_duration_seconds_count\{[^}]*route="\/hello"[^}]*\} 1/);
    assert.doesNotMatch(
      metrics,
      /http_request_duration_seconds_count\{[^}]*route="\/(healthz|readyz|metrics)"/,
    );
    for (const route of ['/healthz', '/readyz'])
      assert.match(
        metrics,
        new RegExp(`sintonia_probe_requests_total\\{route="${route}",status_code="200"[^}]*\\} 2`),
      );
    // The scrape being answered is counted once it is sent: the two before it.
    assert.match(metrics, /sintonia_probe_requests_total\{route="\/metrics",status_code="200"[^}]*\} 2/);
  });

  it('at debug: each probe has its request line, at debug', async () => {
    const { requestLines } = await probed('debug');
    const levels = new Map(requestLines.map((line) => [line.url, line.level]));
    for (const url of probes) assert.equal(levels.get(url), 20, url);
    assert.equal(levels.get('/hello'), 30);
    assert.equal(requestLines.length, 8);
  });
});
