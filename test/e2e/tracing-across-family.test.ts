import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { linkedChat } from '../helpers/assistant-chat.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { freePort, startServe } from '../helpers/processes.ts';
import { until } from '../helpers/until.ts';

const BASE = '/api/v1';
const services = ['client-api', 'assistant-auth', 'agents'] as const;

interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  name: string;
  requestId?: string;
}

type Attribute = { key: string; value: { stringValue?: string } };

/** What an OTLP/HTTP JSON export holds, as far as this test reads it. */
interface Export {
  resourceSpans: Array<{
    resource: { attributes: Attribute[] };
    scopeSpans: Array<{
      scope: { name: string };
      spans: Array<{ traceId: string; spanId: string; name: string; attributes?: Attribute[] }>;
    }>;
  }>;
}

/** A collector's OTLP/HTTP traces endpoint, in JSON: every span received, with its service.name and scope. */
function otlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const paths = new Set<string>();
  const server = createServer((request, response) => {
    paths.add(request.url ?? '');
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        for (const resource of (JSON.parse(body) as Export).resourceSpans) {
          const service =
            resource.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value
              .stringValue ?? '';
          for (const scoped of resource.scopeSpans)
            for (const span of scoped.spans)
              spans.push({
                service,
                scope: scoped.scope.name,
                traceId: span.traceId,
                spanId: span.spanId,
                name: span.name,
                requestId: span.attributes?.find((attribute) => attribute.key === 'sintonia.request_id')
                  ?.value.stringValue,
              });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { spans, paths, server };
}

/**
 * One chat message that acts on a device, followed across three processes (one per service) by
 * OpenTelemetry: one trace holds spans of assistant-auth, the agents and client-api (on PostgreSQL, its
 * statements too), exported over OTLP/HTTP to a receiver; the services' log lines of that trace carry its id.
 */
describe('tracing across the family', () => {
  let core: TestCore;
  let receiver: ReturnType<typeof otlpReceiver>;
  const children: Array<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> = [];
  const urls: Record<string, string> = {};
  let gatewayKey: string;

  before(async () => {
    core = await createTestCore();
    receiver = otlpReceiver();
    await new Promise<void>((resolve) => (receiver.server as Server).listen(0, '127.0.0.1', resolve));
    const address = receiver.server.address();
    const collector = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const ports = {
      'client-api': await freePort(),
      'assistant-auth': await freePort(),
      agents: await freePort(),
    };
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    gatewayKey = (await core.apiKeys.create('gateway', 'gateway')).key;
    for (const service of services) urls[service] = `http://127.0.0.1:${ports[service]}`;
    for (const service of services) {
      const env = {
        ...core.env,
        CLIENT_API_PORT: String(ports['client-api']),
        ASSISTANT_AUTH_PORT: String(ports['assistant-auth']),
        AGENTS_PORT: String(ports.agents),
        ASSISTANT_RUNTIME_KEY: runtimeKey,
        SINTONIA_DEMO: '0',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        // Were the SDK's OTLP metrics or logs on (its defaults), they would reach the receiver within the test.
        OTEL_METRIC_EXPORT_INTERVAL: '200',
        OTEL_BLRP_SCHEDULE_DELAY: '100',
      };
      children.push(await startServe(['--service', service], env, [urls[service] as string], 60_000));
    }
  });
  after(async () => {
    for (const { child, exited } of children) {
      child.kill('SIGTERM');
      await exited;
    }
    receiver.server.close();
    await core.dispose();
  });

  it('one trace id spans all three services for a message that signs a device out', async () => {
    await signedInHousehold(core, `${urls['client-api']}${BASE}`, {
      accountNumber: 'TRC-1001',
      email: 'trc-1001@example.test',
      devices: [['TRC-1001-bed', 'Bedroom TV']],
    });
    const chat = await linkedChat(
      core,
      urls['assistant-auth'] as string,
      gatewayKey,
      randomUUID(),
      'TRC-1001',
    );
    assert.match((await chat.say('sign out the bedroom tv')).text ?? '', /sign «Bedroom TV» out/);
    assert.match((await chat.say('Yes')).text ?? '', /Bedroom TV/);

    const serviceNames = services.map((service) => `sintonia-${service}`);
    const trace = await until(
      () => {
        const byTrace = new Map<string, Set<string>>();
        for (const span of receiver.spans) {
          const names = byTrace.get(span.traceId) ?? new Set();
          names.add(span.service);
          byTrace.set(span.traceId, names);
        }
        // The trace of the "Yes": client-api's sign-out (its delegated device close) is in it.
        return [...byTrace.entries()].find(
          ([traceId, names]) =>
            serviceNames.every((name) => names.has(name)) &&
            receiver.spans.some(
              (span) =>
                span.traceId === traceId &&
                /sessions|devices/.test(span.name) &&
                span.service === 'sintonia-client-api' &&
                span.name.startsWith('DELETE'),
            ),
        )?.[0];
      },
      'a trace with spans of all three services',
      30_000,
    );
    // Spans arrive in batches, each process its own: wait for every part the trace must show.
    const expected = [
      ...serviceNames.map((service) => `${service} @opentelemetry/instrumentation-http`),
      ...serviceNames.map((service) => `${service} @fastify/otel`),
      // assistant-auth calling the agents, the agents calling client-api: fetch, with traceparent.
      'sintonia-assistant-auth @opentelemetry/instrumentation-undici',
      'sintonia-agents @opentelemetry/instrumentation-undici',
      ...(core.database.dialect === 'postgres'
        ? ['sintonia-client-api @opentelemetry/instrumentation-pg']
        : []),
    ];
    const scopesOf = () =>
      new Set(
        receiver.spans
          .filter((span) => span.traceId === trace)
          .map((span) => `${span.service} ${span.scope}`),
      );
    await until(
      () => (expected.every((scope) => scopesOf().has(scope)) ? true : undefined),
      'the trace’s spans from every part',
      20_000,
    ).catch(() =>
      assert.fail(
        `missing ${expected.filter((scope) => !scopesOf().has(scope)).join(', ')}; got ${[...scopesOf()].join(', ')}`,
      ),
    );

    // Logs: client-api's request lines of this trace carry its id (and the request id).
    const clientApiLog = children[0]?.output() ?? '';
    const lines = clientApiLog
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const traced = lines.filter((line) => line.trace_id === trace);
    assert.ok(traced.length > 0, 'client-api logged lines of the trace');
    const completed = traced.filter(
      (line) => line.msg === 'request completed' && typeof line.span_id === 'string',
    );
    assert.ok(completed.length > 0, JSON.stringify(traced));
    // …and the request's span carries the same request id: from a log line to its span and back.
    const spanRequestIds = new Set(
      receiver.spans.filter((span) => span.traceId === trace).map((span) => span.requestId),
    );
    assert.ok(
      completed.some((line) => spanRequestIds.has(line.requestId as string)),
      `request ids ${completed.map((line) => line.requestId).join(', ')} not on the trace's spans`,
    );
    // Traces only: the family's metrics are /metrics and its logs stdout.
    assert.deepEqual([...receiver.paths], ['/v1/traces']);
    // The loader hook the instrumentations need is registered without a deprecated API (DEP0205:
    // `module.register()` on Node 26), nor with an experimental one.
    for (const { output } of children)
      assert.doesNotMatch(output(), /DEP0\d+|DeprecationWarning|ExperimentalWarning/);
  });
});
