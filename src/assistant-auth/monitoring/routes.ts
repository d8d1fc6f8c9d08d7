import Type from 'typebox';
import type { App } from '../../core/http/service-app.ts';
import type { AssistantAuth } from '../composition.ts';

const pingSchema = Type.Object({ status: Type.Literal('ok'), service: Type.String(), time: Type.String() });
const configSchema = Type.Object(
  { cloudStorageSubdomain: Type.String({ description: 'CLOUD_STORAGE_SUBDOMAIN.' }) },
  { $id: 'AssistantConfig' },
);

const tag = 'monitoring';

/** `/ping` (gateway keys) and `/config` (any key); `/healthz` and `/metrics` come from the core app. */
export function monitoringRoutes(app: App, { access, settings }: AssistantAuth): void {
  app.get(
    '/ping',
    access.route(
      { id: 'ping', summary: 'Server status check for the gateway.', tag, access: 'gateway' },
      { response: { 200: pingSchema } },
    ),
    async () => ({ status: 'ok' as const, service: 'assistant-auth', time: new Date().toISOString() }),
  );
  app.get(
    '/config',
    access.route(
      { id: 'getConfiguration', summary: 'The cloud storage subdomain.', tag, access: 'public' },
      { response: { 200: configSchema } },
    ),
    async () => ({ cloudStorageSubdomain: settings.CLOUD_STORAGE_SUBDOMAIN }),
  );
}
