import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { suiteApp } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';

type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  responses: Record<string, unknown>;
  'x-error-types'?: Record<string, string[]>;
};

describe('assistant-auth OpenAPI document and CLI', () => {
  const served = suiteApp('assistant-auth', []);

  describe('happy', () => {
    it('serves an OpenAPI 3 document that validates, with security schemes and every status', async () => {
      const response = await served.app.inject({ url: '/openapi.json' });
      assert.equal(response.statusCode, 200);
      const document = response.json();
      assert.match(document.openapi, /^3\./);
      await SwaggerParser.validate(structuredClone(document));
      assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), [
        'apiKey',
        'callbackData',
        'directLineBearer',
        'fileSignature',
      ]);
      const paths = document.paths as Record<string, Record<string, Operation>>;
      const op = (path: string, method = 'get') => paths[path]?.[method];
      const statuses = (path: string, method = 'get') =>
        Object.keys(op(path, method)?.responses ?? {}).sort();
      assert.deepEqual(statuses('/users/{assistantId}'), [
        '200',
        '400',
        '401',
        '403',
        '404',
        '410',
        '429',
        '500',
        '503',
      ]);
      assert.deepEqual(statuses('/users/assistant-id'), [
        '200',
        '201',
        '400',
        '401',
        '403',
        '429',
        '500',
        '503',
      ]);
      assert.deepEqual(statuses('/users/assistantid/integrated'), ['200', '201', '400', '401', '500', '503']);
      assert.deepEqual(statuses('/admin/users/phone-numbers/{phone_number}', 'delete'), [
        '204',
        '400',
        '401',
        '403',
        '404',
        '429',
        '500',
        '503',
      ]);
      assert.deepEqual(statuses('/token'), ['200', '400', '401', '403', '409', '429', '500', '502', '503']);
      for (const path of ['/users/assistantid/integrated', '/users/assistantid/integrated/logout']) {
        assert.deepEqual(op(path)?.security, [{ callbackData: [] }]);
        // `data` is a documented, required query parameter too, and its absence one of the 401s.
        const data = op(path)?.parameters?.find((parameter) => parameter.name === 'data');
        assert.equal(data?.in, 'query', path);
        assert.equal(data?.required, true, path);
        assert.deepEqual(data?.schema, { type: 'string', minLength: 1, maxLength: 4096 });
        assert.ok(op(path)?.['x-error-types']?.['401']?.includes('CALLBACK_PARAMETER_MISSING'), path);
      }
      assert.deepEqual(op('/openid/jwk')?.security, []);
      assert.deepEqual(op('/ping')?.security, [{ apiKey: [] }]);
      // /metrics is public, as SPEC lists it: any valid key of the environment (docs/decisions.md).
      assert.deepEqual(op('/metrics')?.security, [{ apiKey: [] }]);
      assert.deepEqual(statuses('/metrics'), ['200', '401', '429', '500', '503']);
      assert.deepEqual(op('/healthz')?.security, []);
      // Readiness: its own 503 (not ready), whose errors name each failed check (draining, the store).
      // Liveness never answers 503: it never asks the store.
      assert.deepEqual(op('/readyz')?.['x-error-types']?.['503'], [
        'SERVICE_UNAVAILABLE',
        'SHUTTING_DOWN',
        'STORE_UNAVAILABLE',
      ]);
      assert.equal(op('/healthz')?.['x-error-types']?.['503'], undefined);
    });

    it('seals a callback parameter with `callback-param` that the service accepts once', async () => {
      const identity = randomUUID();
      const made = await runCli(
        ['callback-param', '--payload', JSON.stringify({ identity, channel: 'web' })],
        served.core.env,
      );
      assert.equal(made.code, 0, made.stderr);
      const printed = JSON.parse(made.stdout) as { data: string; exp: number; expiresAt: string };
      assert.match(printed.data, /^v1\./);
      assert.ok(printed.exp > Date.now() / 1000);
      assert.ok(!made.stdout.includes(identity), 'the identity travels only sealed');
      const url = `/users/assistantid/integrated?data=${encodeURIComponent(printed.data)}`;
      assert.equal((await served.app.inject({ url })).statusCode, 201);
      assert.equal((await served.app.inject({ url })).statusCode, 401);
    });
  });

  describe('errors', () => {
    it('refuses a bad payload with a usage error (exit 2)', async () => {
      for (const payload of ['not json', '[]', JSON.stringify({ identity: 'x', channel: 'Bad Channel' })]) {
        const made = await runCli(['callback-param', '--payload', payload], served.core.env);
        assert.equal(made.code, 2, payload);
        assert.equal(made.stdout, '');
      }
    });
  });
});
