import Type from 'typebox';
import type { Core } from '../../core/core.ts';
import { errorResponses } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { accessDescription, accessHooks, accessSecurity } from '../access.ts';

const pingSchema = Type.Object({ status: Type.Literal('ok'), service: Type.String(), time: Type.String() });
const configSchema = Type.Object(
  { cloudStorageSubdomain: Type.String({ description: 'CLOUD_STORAGE_SUBDOMAIN.' }) },
  { $id: 'AssistantConfig' },
);

/** `/ping` (gateway keys) and `/config` (any key); `/healthz` and `/metrics` come from the core app. */
export async function registerMonitoringRoutes(app: App, core: Core): Promise<void> {
  app.get(
    '/ping',
    {
      onRequest: accessHooks(core, 'gateway'),
      schema: {
        operationId: 'ping',
        summary: 'Server status check for the gateway.',
        description: accessDescription('gateway'),
        tags: ['monitoring'],
        security: accessSecurity('gateway'),
        response: { 200: pingSchema, ...errorResponses(401, 403) },
      },
    },
    async () => ({ status: 'ok' as const, service: 'assistant-auth', time: new Date().toISOString() }),
  );
  app.get(
    '/config',
    {
      onRequest: accessHooks(core, 'public'),
      schema: {
        operationId: 'getConfiguration',
        summary: 'The cloud storage subdomain.',
        description: accessDescription('public'),
        tags: ['monitoring'],
        security: accessSecurity('public'),
        response: { 200: configSchema, ...errorResponses(401) },
      },
    },
    async () => ({ cloudStorageSubdomain: core.config.CLOUD_STORAGE_SUBDOMAIN }),
  );
}
