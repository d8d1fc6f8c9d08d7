import type { ServiceDefinition } from '../core/http/service-app.ts';
import { registerAccountRoutes } from './accounts/routes.ts';
import { createClientApiDeps } from './deps.ts';
import { registerDeviceRoutes } from './devices/routes.ts';
import { clientApiOpenApi } from './openapi.ts';
import { registerSessionRoutes } from './sessions/routes.ts';

/**
 * Area A. Every operation lives under CLIENT_API_BASE_PATH, registered in the one list below (one line
 * per resource); the JWKS of the device tokens is at the root path.
 */
export const clientApiService: ServiceDefinition = {
  name: 'client-api',
  metricsAccess: 'open',
  openapi: clientApiOpenApi({ CLIENT_API_BASE_PATH: process.env.CLIENT_API_BASE_PATH ?? '/api/v1' }),
  async register(app, core) {
    const deps = createClientApiDeps(core);
    await app.register(
      async (scope) => {
        registerAccountRoutes(scope, deps);
        registerDeviceRoutes(scope, deps);
        registerSessionRoutes(scope, deps);
      },
      { prefix: core.config.CLIENT_API_BASE_PATH },
    );
  },
};
