import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { agentsService } from './agents/service.ts';
import { assistantAuthService } from './assistant-auth/service.ts';
import { clientApiService } from './client-api/service.ts';
import { familyRuntimeKey } from './core/api-keys/family-key.ts';
import type { Core, ServiceName } from './core/core.ts';
import { servicePort } from './core/core.ts';
import { type App, buildServiceApp, type ServiceDefinition } from './core/http/service-app.ts';

/** The services of the family, in the order they start (dependencies first). */
export const services: Record<ServiceName, ServiceDefinition> = {
  'assistant-auth': assistantAuthService,
  agents: agentsService,
  'client-api': clientApiService,
};

export interface RunningService {
  name: ServiceName;
  app: App;
  url: string;
}

export interface RunningFamily {
  services: RunningService[];
  url(name: ServiceName): string;
  /**
   * Waits until the services have kept answering for at least `minMs`, then until none has had a
   * request in flight or a new connection for `quietMs` (at most `maxMs`), keeping connections alive:
   * a proxy that was not told keeps sending on the connections it holds instead of opening new ones, which
   * the listen backlog would hold and closing it reset. Then stops accepting, keeping the connections it
   * has, answers each request on them with Connection: close, and waits until they have been quiet for
   * `quietMs` (at most `maxMs / 2` more): the connections still in use end by themselves.
   */
  drain(options: { minMs: number; quietMs: number; maxMs: number }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds and starts the named services on their configured ports (0 picks a free one) and records each
 * address in the core so siblings find each other. Stops what it started if one fails.
 */
export async function startFamily(core: Core, names: readonly ServiceName[]): Promise<RunningFamily> {
  const running: RunningService[] = [];
  const ordered = (Object.keys(services) as ServiceName[]).filter((name) => names.includes(name));
  const family: RunningFamily = {
    services: running,
    url(name) {
      const found = running.find((service) => service.name === name);
      if (!found) throw new Error(`${name} is not running`);
      return found.url;
    },
    async drain({ minMs, quietMs, maxMs }) {
      // Listeners only while draining: nothing is added to the request path before shutdown.
      let lastActivity = Date.now();
      let accepting = true;
      const inFlight = new Set<ServerResponse>();
      const onConnection = () => {
        lastActivity = Date.now();
      };
      const onRequest = (_request: IncomingMessage, response: ServerResponse) => {
        lastActivity = Date.now();
        // Once the port refuses, the client is told not to reuse the connection, so none is cut off at close.
        if (!accepting) response.shouldKeepAlive = false;
        inFlight.add(response);
        response.once('close', () => {
          inFlight.delete(response);
          lastActivity = Date.now();
        });
      };
      for (const { app } of running) {
        app.server.on('connection', onConnection);
        // Before Fastify's own listener, so that even an answer written at once is told.
        app.server.prependListener('request', onRequest);
      }
      const quiet = (now: number) => inFlight.size === 0 && now - lastActivity >= quietMs;
      const waitUntil = async (done: (now: number) => boolean) => {
        while (!done(Date.now())) await new Promise((wait) => setTimeout(wait, 10));
      };
      const started = Date.now();
      try {
        await waitUntil((now) => now - started >= maxMs || (now - started >= minMs && quiet(now)));
        // Under a proxy that was not told (a plain SIGTERM behind nginx) requests keep coming until the
        // port refuses. http.Server.close would also close every connection without a request in progress,
        // and one a client has just opened may hold a request not yet read: reset, a POST becomes the
        // proxy's own 502. So the listener alone is closed here (net.Server's close): new connections are
        // refused (a proxy passes those on), and each request on an open connection is answered.
        for (const { app } of running) NetServer.prototype.close.call(app.server);
        accepting = false;
        const stopped = Date.now();
        lastActivity = stopped;
        await waitUntil((now) => now - stopped >= maxMs / 2 || quiet(now));
      } finally {
        for (const { app } of running) {
          app.server.off('connection', onConnection);
          app.server.off('request', onRequest);
        }
      }
    },
    async close() {
      // Reverse order: callers stop before what they call.
      for (const service of [...running].reverse()) await service.app.close();
    },
  };
  // The agents server and the chat page call their siblings with a runtime key: the configured one, else
  // the family's own, derived from the master key.
  if (core.config.ASSISTANT_RUNTIME_KEY === undefined && ordered.some((name) => name !== 'client-api'))
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: await familyRuntimeKey(core) });
  try {
    for (const name of ordered) {
      const app = await buildServiceApp(core, services[name]);
      const port = servicePort(core.config, name);
      await app.listen({ host: core.config.HOST, port });
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const host = core.config.HOST.includes(':') ? `[${core.config.HOST}]` : core.config.HOST;
      const url = `http://${host}:${actualPort}`;
      core.setServiceUrl(name, url);
      running.push({ name, app, url });
    }
  } catch (error) {
    await family.close();
    throw error;
  }
  return family;
}

/** Loads the demo data of every service once; returns what each wants printed. */
export async function seedDemo(core: Core): Promise<Record<string, unknown>> {
  const printed: Record<string, unknown> = {};
  for (const service of Object.values(services)) {
    if (service.seedDemo) printed[service.name] = await service.seedDemo(core);
  }
  return printed;
}
