import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Type from 'typebox';
import { DOCS_CSP, documentForPage } from '../../src/core/http/docs.ts';
import { type App, buildServiceApp, type ServiceDefinition } from '../../src/core/http/service-app.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

const ping = {
  schema: { operationId: 'Probe_Ping', response: { 200: Type.Object({ pong: Type.Boolean() }) } },
};

/** A Swagger 2 service that names an absolute host, as a hand-written document might. */
const swaggerService: ServiceDefinition = {
  name: 'client-api',
  openapi: {
    format: 'swagger2',
    documentPath: '/base/swagger.json',
    document: {
      info: { title: 'probe', version: 'V1' },
      host: 'api.example.com',
      schemes: ['https'],
      basePath: '/base',
      // `apiKey`: the scheme the core's /metrics route names (every service's document declares it).
      securityDefinitions: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  },
  async plugin(app) {
    await app.register(async (scope) => scope.get('/ping', ping, async () => ({ pong: true })), {
      prefix: '/base',
    });
  },
};

/** An OpenAPI 3 service whose servers are absolute. */
const openApiService: ServiceDefinition = {
  name: 'agents',
  openapi: {
    format: 'openapi3',
    documentPath: '/openapi.json',
    document: {
      openapi: '3.0.3',
      info: { title: 'probe', version: '1' },
      servers: [{ url: 'https://agents.example.com/' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
    },
  },
  async plugin(app) {
    app.get('/ping', ping, async () => ({ pong: true }));
  },
};

const undocumented: ServiceDefinition = {
  name: 'assistant-auth',
  async plugin() {},
};

describe('GET /docs (API reference page)', () => {
  let core: TestCore;
  const apps: App[] = [];
  const build = async (service: ServiceDefinition) => {
    const app = await buildServiceApp(core, service);
    await app.ready();
    apps.push(app);
    return app;
  };
  before(async () => {
    core = await createTestCore();
  });
  after(async () => {
    for (const app of apps) await app.close();
    await core.dispose();
  });

  it('serves an HTML page whose assets are all local, under a CSP that allows only this origin', async () => {
    const app = await build(swaggerService);
    const page = await app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['content-security-policy'], DOCS_CSP);
    assert.ok(page.headers['x-request-id']);
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    assert.ok(sources.length >= 5, page.body);
    for (const source of sources) assert.match(source, /^\/docs\/static\//);
    for (const source of sources) {
      const asset = await app.inject({ method: 'GET', url: source });
      assert.equal(asset.statusCode, 200, source);
    }
  });

  it('configures Swagger UI: no validator badge, try-it on, operation ids shown, authorisation kept', async () => {
    const app = await build(swaggerService);
    const script = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.equal(script.statusCode, 200);
    assert.match(script.body, /validatorUrl: null/);
    assert.match(script.body, /"tryItOutEnabled":true/);
    assert.match(script.body, /"displayOperationId":true/);
    assert.match(script.body, /"persistAuthorization":true/);
  });

  it('gives the page the document without its absolute address (Swagger 2), so try-it calls this service', async () => {
    const app = await build(swaggerService);
    const forPage = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    assert.equal(forPage.host, undefined);
    assert.equal(forPage.schemes, undefined);
    assert.equal(forPage.basePath, '/base');
    assert.equal(forPage.paths['/ping'].get.operationId, 'Probe_Ping');
    // The published document itself is untouched, and the page's own routes are not in it.
    const published = (await app.inject({ method: 'GET', url: '/base/swagger.json' })).json();
    assert.equal(published.host, 'api.example.com');
    assert.deepEqual(published.schemes, ['https']);
    assert.deepEqual(
      Object.keys(published.paths).filter((path) => path.startsWith('/docs')),
      [],
    );
  });

  it('keeps only the path of OpenAPI 3 servers', async () => {
    const app = await build(openApiService);
    assert.equal((await app.inject({ method: 'GET', url: '/docs' })).statusCode, 200);
    const forPage = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    assert.deepEqual(forPage.servers, [{ url: '/' }]);
    assert.deepEqual(
      documentForPage({ openapi: '3.0.3', servers: [{ url: 'http://a.example/v2' }, { url: '/v2' }] })
        .servers,
      [{ url: '/v2' }],
    );
    assert.deepEqual(documentForPage({ openapi: '3.0.3' }).servers, [{ url: '/' }]);
  });

  it('is absent on a service without a document', async () => {
    const app = await build(undocumented);
    const response = await app.inject({ method: 'GET', url: '/docs' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().errors[0].type, 'ROUTE_NOT_FOUND');
  });
});
