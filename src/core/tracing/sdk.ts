import { register } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, trace } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import { register as registerSyncHooks, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
const isProbe = (url: string | undefined) => {
  if (url === undefined) return false;
  const query = url.indexOf('?');
  return PROBES.has(query === -1 ? url : url.slice(0, query));
};

/**
 * The OpenTelemetry Node SDK with the instrumentations of what the family runs on: node:http (the servers),
 * Fastify (its routes and hooks, through Fastify's own @fastify/otel), undici (fetch: how the services
 * call each other, with W3C traceparent) and pg. The exporter, sampler, propagators and resource come
 * from the standard OTEL_* variables, as the SDK reads them (the OpenTelemetry specification's): the exporter
 * by OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL (grpc, http/protobuf, http/json),
 * the sampler by OTEL_TRACES_SAMPLER and _ARG, the resource by OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME.
 * `defaultServiceName` is the resource's service.name only where neither of those names one.
 *
 * The services are ES modules that import `pg` and `fastify`: the import-in-the-middle loader hook,
 * registered here for the instrumented modules only, lets the instrumentations patch what is imported
 * after this runs. It runs in-thread through `module.registerHooks` where Node's synchronous hooks can
 * carry it (`supportsSyncHooks`: 22.22.3, 24.11.1, 25.1 and later); Node 26 deprecates `module.register`
 * (DEP0205), which remains only for the older Node versions `engines` admits.
 */
export async function startSdk(defaultServiceName: string) {
  // Traces only, unless the operator asks for more: the SDK would otherwise also export OTLP metrics and
  // logs by default. The family's metrics are Prometheus' (/metrics) and its logs are stdout; a second
  // metric pipeline would duplicate them and add its own work to every traced request.
  process.env.OTEL_METRICS_EXPORTER ||= 'none';
  process.env.OTEL_LOGS_EXPORTER ||= 'none';
  const instrumentations = [
    // Probes and scrapes are not traced: they would be most of the spans and tell nothing.
    new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => isProbe(request.url) }),
    new UndiciInstrumentation(),
    new PgInstrumentation(),
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      // One span for the request and one for its handler; a span per lifecycle hook cost more than the
      // request itself under load, and the store's statements show what the hooks do.
      instrumentHooks: false,
      // The request id of the logs and the x-request-id header, on the request's span: one finds the other.
      requestHook: (span, request) => span.setAttribute('sintonia.request_id', request.id),
    }),
  ];
  // The modules the instrumentations patch on import (node:http and https, pg and pg-pool; undici and
  // Fastify report through diagnostics channels): every other module loads unwrapped.
  const include = instrumentations.flatMap((instrumentation) =>
    instrumentation.getModuleDefinitions().map((definition) => definition.name),
  );
  if (supportsSyncHooks()) registerSyncHooks({ include });
  else register('import-in-the-middle/hook.mjs', import.meta.url, { data: { include } });
  const sdk = new NodeSDK({
    // Under what the environment detector reads (OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME above it):
    // the SDK's `serviceName` option would override both.
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': defaultServiceName })),
    instrumentations,
  });
  sdk.start();
  return {
    traceFields() {
      const span = trace.getSpan(context.active());
      if (span === undefined) return undefined;
      const { traceId, spanId, traceFlags } = span.spanContext();
      return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}`.slice(-2) };
    },
    shutdown: () => sdk.shutdown(),
  };
}
