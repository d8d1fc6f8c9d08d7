/**
 * Tracing, off unless an OTLP endpoint is set (docs/observability.md). This module loads nothing of
 * OpenTelemetry: the SDK and its instrumentations (sdk.ts) are imported only when tracing is on, before the
 * services' modules, so the instrumentations see `pg`, `http` and Fastify load. Off costs nothing.
 */

export interface Tracing {
  /** Sends the spans still buffered and stops the SDK (at the end of `serve`). */
  shutdown(): Promise<void>;
}

/** The standard OTEL_* variables that decide whether tracing is on. */
type TracingEnv = Partial<
  Record<
    | 'OTEL_EXPORTER_OTLP_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    | 'OTEL_SDK_DISABLED'
    | 'OTEL_TRACES_EXPORTER',
    string
  >
>;

/** On when an OTLP endpoint (base or traces) is set, unless OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none says otherwise. */
export function tracingWanted(env: TracingEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return (
    Boolean(endpoint) &&
    env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' &&
    env.OTEL_TRACES_EXPORTER?.trim() !== 'none'
  );
}

/**
 * `service.name` when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one: `sintonia-<service>`
 * for a process serving one, else `sintonia`.
 */
export function defaultServiceName(services: readonly string[]): string {
  return services.length === 1 ? `sintonia-${services[0]}` : 'sintonia';
}

let traceFields: (() => Record<string, string> | undefined) | undefined;

/**
 * pino's `mixin` while tracing is on: the span in progress' trace_id, span_id and trace_flags on every log
 * line; undefined while it is off, so the logger has no mixin at all.
 */
export function traceLogMixin(): (() => Record<string, string>) | undefined {
  const fields = traceFields;
  if (fields === undefined) return undefined;
  return () => fields() ?? {};
}

/** Starts the SDK when the environment asks for tracing; undefined (nothing loaded) otherwise. */
export async function startTracing(
  env: NodeJS.ProcessEnv,
  services: readonly string[],
): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const { startSdk } = await import('./sdk.ts');
  const started = await startSdk(defaultServiceName(services));
  traceFields = started.traceFields;
  return started;
}
