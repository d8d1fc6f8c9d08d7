import { runWhileOpen, type ServiceDefinition, typed } from '../core/http/service-app.ts';
import { accountRoutes } from './accounts/routes.ts';
import { adInfoRoutes } from './ad-info/routes.ts';
import { authRoutes, jwksRoute } from './auth/routes.ts';
import { bookmarkRoutes } from './bookmarks/routes.ts';
import { campaignRoutes } from './campaigns/routes.ts';
import { commandRoutes } from './commands/routes.ts';
import { commandStreamRoutes } from './commands/stream-route.ts';
import { composeClientApi } from './composition.ts';
import { deviceSignInRoutes } from './device-grant/approval-routes.ts';
import { authorizationServerMetadataRoute, deviceGrantOAuthRoutes } from './device-grant/oauth-routes.ts';
import { deviceRoutes } from './devices/routes.ts';
import { handoffRoutes } from './handoff/routes.ts';
import { mediaTypes } from './media/plugin.ts';
import { clientApiOpenApi } from './openapi.ts';
import { playbackRoutes } from './playback/routes.ts';
import { ratingRoutes } from './ratings/routes.ts';
import { registrationRoutes } from './registration/routes.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { subscriptionRoutes } from './subscriptions/routes.ts';
import { tvPageRoutes } from './tv/routes.ts';
import { userRoutes } from './users/routes.ts';

/** The demo data set: one account and one user with a known password (printed at start). */
const DEMO = { accountNumber: 'demo-0001', email: 'demo@sintonia.test', password: 'sintonia-demo' } as const;

/** The client API's routes under its base path, top to bottom: one line per resource. */
const routes = [
  accountRoutes,
  deviceRoutes,
  sessionRoutes,
  userRoutes,
  authRoutes,
  bookmarkRoutes,
  playbackRoutes,
  ratingRoutes,
  registrationRoutes,
  campaignRoutes,
  subscriptionRoutes,
  adInfoRoutes,
  deviceSignInRoutes,
  commandRoutes,
  handoffRoutes,
];

/**
 * The client API. Every operation lives under CLIENT_API_BASE_PATH, in the negotiated media type; the
 * JWKS of the device tokens is at the root path.
 */
export const clientApiService: ServiceDefinition = {
  name: 'client-api',
  // The document follows CLIENT_API_BASE_PATH of the parsed configuration.
  openapi: clientApiOpenApi,
  async plugin(instance, { core, metrics }) {
    const app = typed(instance);
    const api = composeClientApi(core, metrics);
    // Mail left by a crashed process goes out on the next start; at close the current message is finished.
    const streams = api.commandStreams.hub;
    runWhileOpen(app, api.mailWorker, api.retention, {
      start: () => streams.start(),
      stop: () => streams.close(),
    });
    // The command streams never end by themselves: they are ended before the server waits for its requests.
    app.addHook('preClose', (done) => {
      streams.close().then(() => done(), done);
    });
    await app.register(
      async (instance) => {
        const scope = typed(instance);
        await scope.register(mediaTypes, {
          bodyLimit: core.config.BODY_LIMIT,
          maxDepth: core.config.BODY_MAX_DEPTH,
        });
        // Every action the assistant takes for a person is audited before it is answered: who acted (the
        // runtime key behind the delegation), which operation with what outcome, on which account.
        // A callback hook, not an async one: every other request passes it without a promise or a tick.
        scope.addHook('onSend', (request, reply, payload, done) => {
          const principal = request.principal;
          if (principal?.kind !== 'assistant') return done(null, payload);
          const operation = (request.routeOptions.schema as { operationId?: string } | undefined)
            ?.operationId;
          core
            .audit(
              `assistant:${principal.actor}`,
              `delegated:${operation ?? request.routeOptions.url} ${reply.statusCode}`,
              principal.accountNumber,
            )
            .catch((error: unknown) =>
              request.log.error({ err: error }, 'auditing a delegated action failed'),
            )
            .then(() => done(null, payload));
        });
        for (const register of routes) register(scope, api);
      },
      { prefix: core.config.CLIENT_API_BASE_PATH },
    );
    // The TV sign-in's OAuth endpoints and page speak forms, beside the media-typed scope.
    await app.register(async (instance) => deviceGrantOAuthRoutes(typed(instance), api), {
      prefix: core.config.CLIENT_API_BASE_PATH,
    });
    // The devices' command streams answer text/event-stream, beside the media-typed scope.
    await app.register(async (instance) => commandStreamRoutes(typed(instance), api), {
      prefix: core.config.CLIENT_API_BASE_PATH,
    });
    // The TV page: HTML and its files, beside the media-typed scope too.
    await app.register(async (instance) => tvPageRoutes(typed(instance), core.config), {
      prefix: core.config.CLIENT_API_BASE_PATH,
    });
    jwksRoute(app, api);
    authorizationServerMetadataRoute(app, api);
  },
  async seedDemo(core) {
    const api = composeClientApi(core);
    const existing = await api.repositories.accounts.find(DEMO.accountNumber);
    const account = existing ?? (await api.accounts.create(DEMO.accountNumber));
    if ((await api.repositories.users.findByEmail(DEMO.email)).length === 0) {
      await api.users.create({
        accountNumber: account.accountNumber,
        email: DEMO.email,
        password: DEMO.password,
        profiles: ['adult', 'kids'],
      });
    }
    return {
      accountNumber: account.accountNumber,
      userHash: account.userHash,
      email: DEMO.email,
      password: DEMO.password,
      signIn: `POST ${core.config.CLIENT_API_BASE_PATH}/auth/web/users/authenticate {"username":"${DEMO.email}","password":"${DEMO.password}","deviceId":"demo-browser"}`,
    };
  },
};
