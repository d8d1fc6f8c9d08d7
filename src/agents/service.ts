import type { ServiceDefinition } from '../core/http/service-app.ts';

export const agentsService: ServiceDefinition = {
  name: 'agents',
  metricsAccess: 'open',
  async register() {},
};
