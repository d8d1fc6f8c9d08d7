import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServiceName } from '../../src/core/core.ts';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp } from '../helpers/harness.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

interface Operation {
  method: string;
  path: string;
  operationId?: string;
  security?: Array<Record<string, string[]>>;
}

interface Served {
  document: {
    paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
    components?: { securitySchemes?: Record<string, Record<string, unknown>> };
  };
  operations: Operation[];
}

const documents: Array<[ServiceName, string]> = [
  ['client-api', '/api/v1/swagger.json'],
  ['assistant-auth', '/openapi.json'],
  ['agents', '/openapi.json'],
];

describe('operation ids of the three API documents', () => {
  const served = new Map<ServiceName, Served>();
  const closers: Array<() => Promise<void>> = [];
  before(async () => {
    for (const [name, path] of documents) {
      const { app, close }: { app: App; close: () => Promise<void> } = await createTestApp(name);
      closers.push(close);
      const response = await app.inject({ method: 'GET', url: path });
      assert.equal(response.statusCode, 200, `${name} ${path}`);
      const document = response.json() as Served['document'];
      const operations = Object.entries(document.paths).flatMap(([operationPath, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.includes(method))
          .map(([method, operation]) => ({ ...operation, method, path: operationPath })),
      );
      served.set(name, { document, operations });
    }
  });
  after(async () => {
    for (const close of closers) await close();
  });

  for (const [name] of documents) {
    it(`${name}: every operation has an operation id, unique in the document`, () => {
      const operations = served.get(name)?.operations ?? [];
      assert.ok(operations.length > 0);
      const missing = operations.filter((op) => !op.operationId).map((op) => `${op.method} ${op.path}`);
      assert.deepEqual(missing, [], 'operations without an operationId');
      const seen = new Map<string, string[]>();
      for (const op of operations) {
        const id = String(op.operationId);
        seen.set(id, [...(seen.get(id) ?? []), `${op.method} ${op.path}`]);
      }
      assert.deepEqual(
        [...seen].filter(([, where]) => where.length > 1),
        [],
        'operation ids used more than once',
      );
    });
  }

  for (const name of ['assistant-auth', 'agents'] as const) {
    it(`${name}: ids are camelCase; the core's routes are getHealth, getReadiness, getMetrics`, () => {
      const operations = served.get(name)?.operations ?? [];
      const notCamel = operations.filter((op) => !/^[a-z][A-Za-z0-9]*$/.test(String(op.operationId)));
      assert.deepEqual(
        notCamel.map((op) => `${op.method} ${op.path} ${op.operationId}`),
        [],
      );
      const id = (path: string) =>
        operations.find((op) => op.method === 'get' && op.path === path)?.operationId;
      assert.deepEqual(
        [id('/healthz'), id('/readyz'), id('/metrics')],
        ['getHealth', 'getReadiness', 'getMetrics'],
      );
    });
  }

  it("assistant-auth: names the contract's assistant-auth operations", () => {
    const operations = served.get('assistant-auth')?.operations ?? [];
    const id = (method: string, path: string) =>
      operations.find((op) => op.method === method && op.path === path)?.operationId;
    assert.equal(id('get', '/users/{assistantId}'), 'getAssistantUser');
    assert.equal(id('delete', '/users/{assistantId}'), 'deleteAssistantUser');
    assert.equal(id('get', '/token'), 'getChannelToken');
    assert.equal(id('get', '/openid/jwk'), 'getJsonWebKeySet');
  });

  it('assistant-auth: every Direct Line route lists the http bearer scheme', () => {
    const { document, operations } = served.get('assistant-auth') ?? { document: undefined, operations: [] };
    const schemes = document?.components?.securitySchemes ?? {};
    assert.deepEqual(
      { type: schemes.directLineBearer?.type, scheme: schemes.directLineBearer?.scheme },
      { type: 'http', scheme: 'bearer' },
    );
    const directLine = operations.filter((op) => op.path.startsWith('/v3/directline/'));
    assert.deepEqual(directLine.map((op) => `${op.method} ${op.path}`).sort(), [
      'get /v3/directline/conversations/{conversationId}',
      'get /v3/directline/conversations/{conversationId}/activities',
      'get /v3/directline/conversations/{conversationId}/files/{fileId}',
      'head /v3/directline/conversations/{conversationId}',
      'head /v3/directline/conversations/{conversationId}/activities',
      'head /v3/directline/conversations/{conversationId}/files/{fileId}',
      'post /v3/directline/conversations',
      'post /v3/directline/conversations/{conversationId}/activities',
      'post /v3/directline/conversations/{conversationId}/upload',
      'post /v3/directline/tokens/generate',
      'post /v3/directline/tokens/refresh',
    ]);
    for (const op of directLine) {
      // A file is also fetched by its contentUrl's signature alone.
      const expected = op.path.includes('/files/')
        ? [{ directLineBearer: [] }, { fileSignature: [] }]
        : [{ directLineBearer: [] }];
      assert.deepEqual(op.security, expected, `${op.method} ${op.path}`);
    }
    // The bearer scheme is the Direct Line routes' only: the rest keep their API key or callback parameter.
    const others = operations.filter(
      (op) =>
        !op.path.startsWith('/v3/directline/') &&
        JSON.stringify(op.security ?? []).includes('directLineBearer'),
    );
    assert.deepEqual(others, []);
  });
});
