import type {} from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import ajvFormats from 'ajv-formats';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RawServerDefault,
} from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import Type from 'typebox';
import type { Core, ServiceName } from '../core.ts';
import { errorBodySchema, httpErrors } from '../errors.ts';
import type { App } from './app.ts';
import { challengerFor } from './challenges.ts';
import { answerClientError } from './client-errors.ts';
import { registerDocs } from './docs.ts';
import { answerFrameworkError, notFoundHandler, problemHandler, sendProblem } from './error-handler.ts';
import { installMetrics, isProbe, registerMetricsRoute } from './metrics.ts';
import { type OpenApiSource, registerOpenApi, resolveOpenApi, serveOpenApiDocument } from './openapi.ts';
import {
  ACCESS_MESSAGE,
  accessLineWriter,
  lazyRequestLogger,
  logUrl,
  requestIdSource,
} from './request-logger.ts';
import { withErrors } from './route-errors.ts';
import { recordRouteMethods } from './route-methods.ts';
import { exactDateTimes, strictBodyValidators } from './validation.ts';

export type { App };

/**
 * A service's composition root: builds its repositories, services and workers, registers its routes.
 * `metrics` is the service's registry (its /metrics), where the service adds its own metrics.
 */
export type ServicePlugin = FastifyPluginAsync<{ core: Core; metrics: Registry }>;

export interface ServiceDefinition {
  name: ServiceName;
  /** The service's API document (or a function of the configuration giving it); paths come from the routes' schemas. */
  openapi?: OpenApiSource;
  /**
   * The service itself, registered as an encapsulated Fastify plugin: whatever it starts (workers,
   * timers, sockets) it stops in its own `onClose` hook.
   */
  plugin: ServicePlugin;
  /** Loads this service's part of the demo data set; returns what to print (credentials, ids). */
  seedDemo?(core: Core): Promise<Record<string, unknown>>;
}

/** Work a service runs beside its routes (an outbox worker, a purge timer, a stream hub). */
export interface BackgroundWork {
  start(): unknown;
  stop(): unknown;
}

/**
 * Starts the work once the app is ready (so what a stopped process left is picked up at the next start)
 * and stops it, in reverse order, when the app closes.
 */
export function runWhileOpen(app: FastifyInstance, ...work: BackgroundWork[]): void {
  app.addHook('onReady', async () => {
    for (const item of work) await item.start();
  });
  app.addHook('onClose', async () => {
    for (const item of [...work].reverse()) await item.stop();
  });
}

/** The app a service plugin registers its routes on: Fastify typed by the TypeBox schemas. */
export function typed(instance: FastifyInstance): App {
  return instance.withTypeProvider<TypeBoxTypeProvider>();
}

/** A request id from the caller is kept when it is a sane token; otherwise a new one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Longest path parameter, in characters as sent (percent-encoded): a 254-character e-mail (RFC 5321)
 * fits even fully percent-encoded (762); a longer one is 414 in the family body. Fastify's default is 100.
 */
export const MAX_PARAM_LENGTH = 1024;

/** How often the server looks for connections past the headers or request timeout. */
const TIMEOUT_CHECK_MS = 1000;

export function serviceOptions(
  core: Core,
  service: ServiceName,
): FastifyHttpOptions<RawServerDefault, FastifyBaseLogger> {
  const newRequestId = requestIdSource();
  const logger = core.logger.child(
    { service },
    {
      serializers: {
        req: (request: { method: string; url: string }) => ({
          method: request.method,
          url: logUrl(request.url),
        }),
      },
    },
  );
  const { HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS } = core.config;
  // Node refuses headers allowed longer than the whole request.
  const headersTimeout = Math.min(HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS);
  return {
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: core.config.BODY_LIMIT,
    // A slow sender is cut off at the headers and request timeouts; Node looks for them every
    // connectionsCheckingInterval (30 s by default), which would stretch each bound by up to that.
    http: {
      headersTimeout,
      requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeout),
    },
    requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: HTTP_KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    // Only these peers' X-Forwarded-For is believed: by default request.ip is the socket's peer.
    trustProxy: core.config.TRUSTED_PROXIES.trim()
      .split(/\s*,\s*/)
      .filter(Boolean),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The router's own refusals (414 for a path parameter over the limit, 400 for bad encoding); the
    // apps of buildServiceApp also record them like any other request.
    frameworkErrors: answerFrameworkError,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
    },
    childLoggerFactory: lazyRequestLogger,
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      // Fastify's own request logging writes two lines per request; buildServiceApp writes one instead.
      disableRequestLogging: true,
    }),
    // A request that reaches a closing server (a keep-alive connection's next one, or a connection accepted
    // just before the listener closed) is served like any other, with Connection: close, and the close waits
    // for it: Fastify's own 503 for it is not the family's body, and a proxy could not tell it from an outage.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Bodies are validated without type coercion; path, query and headers with it; no part may hold U+0000
    // (see strictBodyValidators).
    schemaController: { compilersFactory: { buildValidator: strictBodyValidators() as never } },
    ajv: {
      // `xml` is the Swagger 2 XML object the media-type codecs read; ajv only needs to tolerate it.
      customOptions: {
        allErrors: true,
        coerceTypes: 'array',
        removeAdditional: false,
        useDefaults: true,
        keywords: ['xml'],
      },
      // ajv-formats' default export is the plugin; its CJS typing does not line up with Fastify's. Its
      // date-time is then replaced by one that takes only times Date holds (exactDateTimes).
      plugins: [ajvFormats as unknown as never, exactDateTimes as never],
    },
  };
}

/** Builds one service: the same function serves production and the tests, so the two never drift. */
export async function buildServiceApp(core: Core, service: ServiceDefinition): Promise<App> {
  // The router's own refusals run no hook: they are recorded (log line, histogram) where they are answered.
  let record: (request: FastifyRequest, reply: FastifyReply) => void = () => {};
  const app = Fastify({
    ...serviceOptions(core, service.name),
    frameworkErrors: (error, request, reply) => {
      answerFrameworkError(error, request, reply);
      record(request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(errorBodySchema);
  // Bodies are JSON unless a scope says otherwise (client-api's media types, forms, uploads): a text/plain
  // body is 415 like any other unsupported type, not a string the schema then refuses.
  app.removeContentTypeParser('text/plain');
  // Before any route: the not-found handler answers 405 for a path registered with other methods.
  recordRouteMethods(app);
  const openapi = service.openapi && resolveOpenApi(service.openapi, core.config);
  if (openapi) {
    await registerOpenApi(app, openapi);
    app.decorate('authChallenge', challengerFor(openapi.document, openapi.realm));
  }
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.setErrorHandler(problemHandler());
  app.setNotFoundHandler(notFoundHandler);
  const metrics = installMetrics(service.name);
  core.metrics.register(metrics.registry);
  // One info line per request, at its end, and the duration histogram, from one hook. The line holds
  // only fields built here (path with query values masked, no headers), so it is written without
  // redaction (a walk of every line for fields it cannot hold), by accessLineWriter. A route's own
  // logLevel still silences it. Probes and scrapes (/healthz, /readyz, /metrics) are a line at debug and
  // counted apart (installMetrics): every few seconds from each prober, they would drown the API's lines.
  const accessLog = app.log.child({}, { redact: [] as string[] }) as Logger;
  const accessLine = accessLineWriter(accessLog);
  record = (request, reply) => {
    metrics.observe(request, reply);
    const probe = isProbe(request);
    if ((request.log as Logger).isLevelEnabled(probe ? 'debug' : 'info')) {
      const fields = {
        requestId: request.id,
        method: request.method,
        url: logUrl(request.url),
        statusCode: reply.statusCode,
        responseTime: reply.elapsedTime,
      };
      if (probe) accessLog.debug(fields, ACCESS_MESSAGE);
      else accessLine(fields);
    }
  };
  app.addHook('onResponse', (request, reply, done) => {
    record(request, reply);
    done();
  });
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  const healthSchema = Type.Object({
    status: Type.String(),
    service: Type.String(),
    database: Type.String(),
  });
  // Liveness never asks the store: an orchestrator restarts what fails it, and restarting every instance
  // during a database outage helps nobody. Readiness takes the instance out of rotation instead.
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process and its event loop answer. Never depends on the database.',
        tags: ['monitoring'],
        response: { 200: healthSchema },
      },
    },
    async () => ({ status: 'ok', service: service.name, database: core.database.dialect }),
  );
  app.get(
    '/readyz',
    {
      schema: withErrors(
        {
          summary:
            'Readiness: the database answers and the service is not shutting down; a 503 lists each check that failed (STORE_UNAVAILABLE, SHUTTING_DOWN).',
          tags: ['monitoring'],
          response: { 200: healthSchema },
        },
        [httpErrors.SERVICE_UNAVAILABLE, httpErrors.SHUTTING_DOWN, httpErrors.STORE_UNAVAILABLE],
      ),
    },
    async (_request, reply) => {
      const failed = [];
      if (closing || core.lifecycle.draining) {
        failed.push({ type: httpErrors.SHUTTING_DOWN.type, message: 'The service is shutting down.' });
      }
      if (!(await core.database.ping())) {
        failed.push({ type: httpErrors.STORE_UNAVAILABLE.type, message: 'The database does not answer.' });
      }
      if (failed.length === 0)
        return { status: 'ready', service: service.name, database: core.database.dialect };
      const message = `Not ready: ${failed.map((check) => check.message).join(' ')}`;
      return sendProblem(reply, httpErrors.SERVICE_UNAVAILABLE(message, { errors: failed }));
    },
  );
  registerMetricsRoute(app, core, metrics.registry);

  await app.register(service.plugin, { core, metrics: metrics.registry });
  if (openapi) {
    serveOpenApiDocument(app, openapi);
    await registerDocs(app, service.name);
  }
  return app;
}

/** A 204 answer once `work` is done: what an operation that only acts answers. */
export async function noContent(reply: FastifyReply, work: Promise<unknown>): Promise<FastifyReply> {
  await work;
  return reply.code(204).send(null);
}
