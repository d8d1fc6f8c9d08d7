import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServiceName } from '../../src/core/core.ts';
import { definedErrors } from '../../src/core/errors.ts';
import { createTestApp } from '../helpers/harness.ts';

const documents: Array<[ServiceName, string]> = [
  ['client-api', '/api/v1/swagger.json'],
  ['assistant-auth', '/openapi.json'],
  ['agents', '/openapi.json'],
];

type Operation = {
  responses?: Record<string, { description?: string }>;
  'x-error-types'?: Record<string, string[]>;
};

/**
 * Every error response of every served document is derived from catalogue entries: the response lists
 * the types `x-error-types` names for its status, each type is defined with that status, and no status
 * is documented without its types (a hand-written error response would be).
 */
describe('error responses of the three API documents', () => {
  const operations = new Map<ServiceName, Array<[string, Operation]>>();
  const closers: Array<() => Promise<void>> = [];
  before(async () => {
    for (const [name, path] of documents) {
      const { app, close } = await createTestApp(name);
      closers.push(close);
      const document = (await app.inject({ method: 'GET', url: path })).json() as {
        paths: Record<string, Record<string, Operation>>;
      };
      operations.set(
        name,
        Object.entries(document.paths).flatMap(([path, item]) =>
          Object.entries(item).map(([method, operation]): [string, Operation] => [
            `${method} ${path}`,
            operation,
          ]),
        ),
      );
    }
  });
  after(async () => {
    for (const close of closers) await close();
  });

  const statusOf = new Map<string, Set<number>>();
  for (const spec of definedErrors())
    statusOf.set(spec.type, (statusOf.get(spec.type) ?? new Set()).add(spec.status));

  for (const [name] of documents) {
    it(`${name}: each error response lists the catalogue types of its status`, () => {
      const problems: string[] = [];
      for (const [where, operation] of operations.get(name) ?? []) {
        const types = operation['x-error-types'] ?? {};
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue;
          const listed = types[status] ?? [];
          if (listed.length === 0) problems.push(`${where} ${status}: no x-error-types`);
          else if (response.description !== listed.join(', '))
            problems.push(`${where} ${status}: description`);
          for (const type of listed) {
            if (!statusOf.get(type)?.has(Number(status)))
              problems.push(`${where} ${status}: ${type} not defined so`);
          }
        }
        for (const status of Object.keys(types)) {
          if (!operation.responses?.[status]) problems.push(`${where} ${status}: types without a response`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});
