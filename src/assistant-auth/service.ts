import type { ServiceDefinition } from '../core/http/service-app.ts';

export const assistantAuthService: ServiceDefinition = {
  name: 'assistant-auth',
  metricsAccess: 'any',
  async register() {},
};
