import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp } from '../helpers/harness.ts';

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<
    string,
    {
      content?: Record<string, { schema?: { required?: string[]; properties?: Record<string, unknown> } }>;
      headers?: Record<string, unknown>;
    }
  >;
  'x-error-types'?: Record<string, string[]>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; name?: string }> };
}

describe('agents OpenAPI document', () => {
  let app: App;
  let close: () => Promise<void>;
  let document: OpenApiDocument;
  /** The document with its references (the shared error body) resolved. */
  let resolved: OpenApiDocument;
  before(async () => {
    const test = await createTestApp('agents');
    app = test.app;
    close = test.close;
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    document = response.json();
    resolved = (await SwaggerParser.dereference(structuredClone(document) as never)) as never;
  });
  after(() => close());

  const expected: Array<[string, string, string[]]> = [
    ['/agents', 'get', ['200', '401', '403', '429', '500', '502', '503']],
    ['/agents/{name}', 'get', ['200', '400', '401', '403', '404', '429', '500', '502', '503']],
    [
      '/agents/{name}/invoke',
      'post',
      ['200', '400', '401', '403', '404', '413', '415', '429', '500', '502', '503'],
    ],
    [
      '/agents/{name}/stream',
      'post',
      ['200', '400', '401', '403', '404', '413', '415', '429', '500', '502', '503'],
    ],
  ];

  describe('happy', () => {
    it('is a valid OpenAPI 3 document', async () => {
      assert.match(document.openapi, /^3\./);
      await SwaggerParser.validate(structuredClone(document) as never);
    });

    it('declares the API key and the assistant’s bearer JWT', () => {
      const schemes = document.components.securitySchemes;
      assert.deepEqual(schemes.apiKey && { type: schemes.apiKey.type, name: schemes.apiKey.name }, {
        type: 'apiKey',
        name: 'X-API-Key',
      });
      assert.deepEqual(
        schemes.assistantJwt && { type: schemes.assistantJwt.type, scheme: schemes.assistantJwt.scheme },
        {
          type: 'http',
          scheme: 'bearer',
        },
      );
    });

    for (const [path, method, statuses] of expected) {
      it(`${method.toUpperCase()} ${path}: every status, the error schema, both security schemes`, () => {
        const operation = resolved.paths[path]?.[method];
        assert.ok(operation, `${path} is documented`);
        assert.deepEqual(Object.keys(operation.responses).sort(), [...statuses].sort());
        for (const status of statuses.filter((status) => status !== '200')) {
          const schema = operation.responses[status]?.content?.['application/json']?.schema;
          assert.deepEqual(
            schema?.required,
            ['code', 'message', 'errors'],
            `${status} uses the family error body`,
          );
          assert.ok(schema?.properties?.errors, `${status} lists errors[]`);
        }
        assert.ok(operation.operationId, 'has an operationId');
        assert.deepEqual(operation.security, [{ apiKey: [] }, { assistantJwt: [] }]);
      });
    }

    it('documents Retry-After on the 429 of a turn, and which error types each status carries', () => {
      for (const path of ['/agents/{name}/invoke', '/agents/{name}/stream']) {
        const operation = document.paths[path]?.post;
        assert.ok(operation?.responses['429']?.headers?.['Retry-After'], `${path} 429 documents Retry-After`);
        assert.deepEqual(operation?.['x-error-types']?.['429'], ['RATE_LIMITED', 'AGENT_RATE_LIMIT_ERROR']);
        assert.ok(operation?.['x-error-types']?.['502']?.includes('SUBSYSTEM_ERROR'));
      }
    });

    it('documents the stream as text/event-stream', () => {
      const ok = document.paths['/agents/{name}/stream']?.post?.responses['200'];
      assert.ok(ok?.content?.['text/event-stream']);
    });
  });
});
