import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { channelSecret } from '../../src/assistant-auth/directline/credentials.ts';
import type { ServiceName } from '../../src/core/core.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';

/**
 * What the three served documents promise of the wire, checked over real HTTP for every operation they
 * list: a 401 always challenges with a scheme the operation declares (RFC 9110 §11.6.1, RFC 6750), and an
 * unsupported body media type is 415 in the family body.
 */

interface Operation {
  operationId?: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
  requestBody?: unknown;
  parameters?: Array<{ in: string }>;
}
interface ServedDocument {
  basePath?: string;
  paths: Record<string, Record<string, Operation>>;
  securityDefinitions?: Record<string, Scheme>;
  components?: { securitySchemes?: Record<string, Scheme> };
}
interface Scheme {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
}

const documentPaths: Record<ServiceName, string> = {
  'client-api': '/api/v1/swagger.json',
  'assistant-auth': '/openapi.json',
  agents: '/openapi.json',
};
const services = Object.keys(documentPaths) as ServiceName[];

/** The auth-scheme a 401 names for a security scheme of the document (lower case: schemes are case-insensitive). */
function authScheme(name: string, scheme: Scheme): string {
  if (scheme.type === 'basic' || scheme.scheme === 'basic') return 'basic';
  const bearer =
    scheme.scheme === 'bearer' ||
    (scheme.type === 'apiKey' && scheme.name?.toLowerCase() === 'authorization');
  return bearer ? 'bearer' : name.toLowerCase();
}

/** The auth-schemes of a `WWW-Authenticate` value: each challenge starts with one, then `realm=`. */
function challengedSchemes(header: string): string[] {
  return [...header.matchAll(/(?:^|,\s*)([A-Za-z][\w-]*)\s+realm="/g)].map((match) =>
    String(match[1]).toLowerCase(),
  );
}

const documentedOperations = (document: ServedDocument) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      path,
      method: method.toUpperCase(),
      operation,
    })),
  );

describe('the wire as the served documents describe it', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  const bases = {} as Record<ServiceName, string>;
  const documents = {} as Record<ServiceName, ServedDocument>;
  const keys: Record<string, string> = {};

  before(async () => {
    const family = await startTestFamily(services);
    core = family.core;
    close = family.close;
    for (const service of services) {
      bases[service] = family.family.url(service);
      const response = await fetch(`${bases[service]}${documentPaths[service]}`);
      assert.equal(response.status, 200);
      documents[service] = (await response.json()) as ServedDocument;
    }
    for (const keyClass of ['runtime', 'gateway', 'client', 'backoffice'] as const) {
      keys[keyClass] = (await core.apiKeys.create(keyClass, `wire-${keyClass}`)).key;
    }
  });
  after(() => close());

  const schemesOf = (service: ServiceName) => {
    const document = documents[service];
    return document.securityDefinitions ?? document.components?.securitySchemes ?? {};
  };
  /** The operation's URL, its path parameters filled with a plain word (guards run before validation). */
  const urlOf = (service: ServiceName, path: string) =>
    `${bases[service]}${documents[service].basePath?.replace(/\/$/, '') ?? ''}${path.replace(/\{[^}]+\}/g, 'w1')}`;
  /** Operations that take credentials and document a 401. */
  const guarded = (service: ServiceName) =>
    documentedOperations(documents[service]).filter(
      ({ operation }) => (operation.security ?? []).length > 0 && '401' in operation.responses,
    );
  const declaredSchemes = (service: ServiceName, operation: Operation) => {
    const schemes = schemesOf(service);
    return new Set(
      (operation.security ?? []).flatMap((requirement) =>
        Object.keys(requirement).flatMap((name) => {
          const scheme = schemes[name];
          return scheme ? [authScheme(name, scheme)] : [];
        }),
      ),
    );
  };

  for (const service of services) {
    describe(service, () => {
      it('every operation taking credentials answers 401 without them, challenging with its own schemes', async () => {
        const operations = guarded(service);
        assert.ok(operations.length >= 4, `${service} documents guarded operations`);
        for (const { path, method, operation } of operations) {
          const response = await fetch(urlOf(service, path), { method });
          const where = `${method} ${path}`;
          assert.equal(response.status, 401, where);
          const header = response.headers.get('www-authenticate');
          assert.ok(header, `${where} carries WWW-Authenticate`);
          const challenged = challengedSchemes(header);
          const declared = declaredSchemes(service, operation);
          assert.ok(challenged.length > 0, `${where}: ${header}`);
          for (const scheme of challenged)
            assert.ok(declared.has(scheme), `${where}: ${header} names ${scheme}`);
          await response.arrayBuffer();
        }
      });

      it('a bad API key is 401 challenging with the API key scheme alone; a bad token names invalid_token', async () => {
        const schemes = schemesOf(service);
        const keyScheme = Object.entries(schemes).find(
          ([, scheme]) => scheme.type === 'apiKey' && scheme.name?.toLowerCase() === 'x-api-key',
        );
        assert.ok(keyScheme, `${service} declares the X-API-Key scheme`);
        const [keyName] = keyScheme;
        let keyed = 0;
        let tokens = 0;
        for (const { path, method, operation } of guarded(service)) {
          const declared = declaredSchemes(service, operation);
          const where = `${method} ${path}`;
          if (declared.has(keyName.toLowerCase())) {
            const response = await fetch(urlOf(service, path), {
              method,
              headers: { 'x-api-key': 'snt_runtime_unknown_0000000000000000000000000000000000000000000' },
            });
            await response.arrayBuffer();
            assert.equal(response.status, 401, where);
            assert.equal(
              response.headers.get('www-authenticate'),
              `${keyName} realm="${realmOf(service)}"`,
              where,
            );
            keyed += 1;
          }
          if (declared.has('bearer')) {
            const response = await fetch(urlOf(service, path), {
              method,
              headers: { authorization: 'Bearer aaa.bbb.ccc' },
            });
            await response.arrayBuffer();
            // The embedded channel refuses a token that is not its own with 403, as Direct Line does.
            if (response.status !== 401) continue;
            assert.match(
              String(response.headers.get('www-authenticate')),
              /Bearer realm="[^"]+", error="invalid_token"/,
              where,
            );
            tokens += 1;
          }
        }
        assert.ok(keyed > 0, `${service}: operations taking an API key were tried`);
        if (service !== 'assistant-auth')
          assert.ok(tokens > 0, `${service}: operations taking a token were tried`);
      });

      it('a text/plain body is 415 in the family body wherever a body is taken', async () => {
        let checked = 0;
        for (const { path, method, operation } of documentedOperations(documents[service])) {
          const takesBody =
            operation.requestBody !== undefined || operation.parameters?.some((p) => p.in === 'body');
          const credentials = credentialsFor(operation);
          if (!takesBody || credentials === undefined) continue;
          const where = `${method} ${path}`;
          const response = await fetch(urlOf(service, path), {
            method,
            headers: { ...credentials, 'content-type': 'text/plain' },
            body: 'plain words',
          });
          if (response.status === 403) {
            await response.arrayBuffer();
            continue;
          }
          assert.equal(response.status, 415, where);
          const body = (await response.json()) as { code: string; errors: Array<{ type: string }> };
          assert.equal(body.code, 'UNSUPPORTED_MEDIA_TYPE', where);
          assert.ok('415' in operation.responses, `${where} documents its 415`);
          checked += 1;
        }
        assert.ok(checked > 0, `${service}: operations with a body were tried`);
      });
    });
  }

  const realmOf = (service: ServiceName) => (service === 'agents' ? 'sintonia-agents' : 'sintonia');

  /** Credentials that pass an operation's guard, by the schemes it declares; undefined when none here can. */
  function credentialsFor(operation: Operation): Record<string, string> | undefined {
    const names = new Set((operation.security ?? []).flatMap((requirement) => Object.keys(requirement)));
    if (names.size === 0) return {};
    if (names.has('directLineBearer')) return { authorization: `Bearer ${channelSecret(core)}` };
    if (names.has('ApiKey')) return { 'x-api-key': String(keys.backoffice) };
    if (names.has('apiKey')) {
      // The runtime key passes every keyed route but the gateway-published ones (their access line says so).
      const keyClass = /class `gateway` only/.test(operation.description ?? '') ? 'gateway' : 'runtime';
      return { 'x-api-key': String(keys[keyClass]) };
    }
    return undefined;
  }
});
