import type { ServiceDefinition } from '../core/http/service-app.ts';
import { registerAccountRoutes } from './accounts/routes.ts';
import { registerAdInfoRoutes } from './ad-info/routes.ts';
import { registerAuthRoutes, registerJwksRoute } from './auth/routes.ts';
import { registerBookmarkRoutes } from './bookmarks/routes.ts';
import { registerCampaignRoutes } from './campaigns/routes.ts';
import { createClientApiDeps } from './deps.ts';
import { registerDeviceRoutes } from './devices/routes.ts';
import { mediaTypes } from './media/plugin.ts';
import { clientApiOpenApi } from './openapi.ts';
import { registerRatingRoutes } from './ratings/routes.ts';
import { registerRegistrationRoutes } from './registration/routes.ts';
import { registerSessionRoutes } from './sessions/routes.ts';
import { registerSubscriptionRoutes } from './subscriptions/routes.ts';
import { registerUserRoutes } from './users/routes.ts';

/** The demo data set: one account and one user with a known password (printed at start). */
const DEMO = { accountNumber: 'demo-0001', email: 'demo@sintonia.test', password: 'sintonia-demo' } as const;

/**
 * Area A. Every operation lives under CLIENT_API_BASE_PATH, registered in the one list below (one line
 * per resource); the JWKS of the device tokens is at the root path.
 */
export const clientApiService: ServiceDefinition = {
  name: 'client-api',
  metricsAccess: 'open',
  // The document follows CLIENT_API_BASE_PATH of the parsed configuration.
  openapi: clientApiOpenApi,
  async register(app, core) {
    const deps = createClientApiDeps(core);
    await app.register(
      async (scope) => {
        await scope.register(mediaTypes, {
          bodyLimit: core.config.BODY_LIMIT,
          maxDepth: core.config.BODY_MAX_DEPTH,
        });
        registerAccountRoutes(scope, deps);
        registerDeviceRoutes(scope, deps);
        registerSessionRoutes(scope, deps);
        registerUserRoutes(scope, deps);
        registerAuthRoutes(scope, deps);
        registerBookmarkRoutes(scope, deps);
        registerRatingRoutes(scope, deps);
        registerRegistrationRoutes(scope, deps);
        registerCampaignRoutes(scope, deps);
        registerSubscriptionRoutes(scope, deps);
        registerAdInfoRoutes(scope, deps);
      },
      { prefix: core.config.CLIENT_API_BASE_PATH },
    );
    registerJwksRoute(app, deps);
  },
  async seedDemo(core) {
    const deps = createClientApiDeps(core);
    const existing = await deps.repositories.accounts.find(DEMO.accountNumber);
    const account = existing ?? (await deps.accountService.create(DEMO.accountNumber));
    if ((await deps.repositories.users.findByEmail(DEMO.email)).length === 0) {
      await deps.userService.create({
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
