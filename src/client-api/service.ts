import type { ServiceDefinition } from '../core/http/service-app.ts';

export const clientApiService: ServiceDefinition = {
  name: 'client-api',
  metricsAccess: 'open',
  async register() {},
};
