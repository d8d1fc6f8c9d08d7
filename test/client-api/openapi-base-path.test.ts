import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp } from '../helpers/harness.ts';

describe('client-api document under CLIENT_API_BASE_PATH=/tv/v2 (from the configuration, not the process)', () => {
  let app: App;
  let close: () => Promise<void>;
  before(async () => {
    assert.equal(process.env.CLIENT_API_BASE_PATH, undefined, 'the test sets it only in the core’s config');
    ({ app, close } = await createTestApp('client-api', { CLIENT_API_BASE_PATH: '/tv/v2' }));
  });
  after(() => close());

  it('serves /tv/v2/swagger.json with basePath /tv/v2 and the area’s operations', async () => {
    const response = await app.inject({ method: 'GET', url: '/tv/v2/swagger.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.swagger, '2.0');
    assert.equal(document.basePath, '/tv/v2');
    assert.ok(document.paths['/accounts/{accountNumber}/devices']?.get, 'paths relative to the base path');
    assert.ok(document.paths['/users/{email}']?.get);
    assert.ok(
      Object.keys(document.paths).every((path) => !path.startsWith('/tv/v2') && !path.startsWith('/api/v1')),
      Object.keys(document.paths).join(', '),
    );
    await SwaggerParser.validate(structuredClone(document));
  });

  it('nothing is left at the default base path', async () => {
    const old = await app.inject({ method: 'GET', url: '/api/v1/swagger.json' });
    assert.equal(old.statusCode, 404);
    assert.equal(old.json().code, 'NOT_FOUND');
  });

  it('the reference page renders the same document', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().basePath, '/tv/v2');
  });
});
