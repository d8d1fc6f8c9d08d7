import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServiceName } from '../../src/core/core.ts';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp } from '../helpers/harness.ts';

const BASE = '/api/v1';

/** A known path, a method it lacks and the Allow it answers with; an unknown path; per service. */
const cases: Record<ServiceName, { known: string; wrong: string; allow: string; unknown: string }> = {
  agents: { known: '/agents', wrong: 'DELETE', allow: 'GET, HEAD', unknown: '/agents/x/y/z' },
  'assistant-auth': { known: '/ping', wrong: 'TRACE', allow: 'GET, HEAD', unknown: '/pong' },
  'client-api': {
    known: `${BASE}/accounts/4242/devices`,
    wrong: 'PATCH',
    allow: 'DELETE, GET, HEAD',
    unknown: `${BASE}/accounts/4242/gadgets`,
  },
};

for (const [name, { known, wrong, allow, unknown }] of Object.entries(cases) as [
  ServiceName,
  (typeof cases)[ServiceName],
][]) {
  describe(`${name}: a method a path does not have`, () => {
    let app: App;
    let close: () => Promise<void>;
    before(async () => {
      ({ app, close } = await createTestApp(name));
    });
    after(() => close());

    it('answers 405 METHOD_NOT_ALLOWED with Allow listing the registered methods, before any credential check', async () => {
      const response = await app.inject({ method: wrong as 'DELETE', url: `${known}?x=1` });
      assert.equal(response.statusCode, 405, response.body);
      assert.equal(response.headers.allow, allow);
      const message = `${wrong} is not allowed on ${known}; allowed: ${allow}.`;
      assert.deepEqual(response.json(), {
        code: 'METHOD_NOT_ALLOWED',
        message,
        errors: [{ type: 'METHOD_NOT_ALLOWED', message }],
      });
    });

    it('answers an unknown path 404 ROUTE_NOT_FOUND, whatever the method', async () => {
      for (const method of ['GET', 'PATCH', 'TRACE'] as const) {
        const response = await app.inject({ method, url: unknown });
        assert.equal(response.statusCode, 404, `${method} ${response.body}`);
        assert.equal(response.headers.allow, undefined);
        assert.equal(response.json().errors[0].type, 'ROUTE_NOT_FOUND');
      }
    });

    it('reads a bodiless QUERY by its path and method, never as a malformed body', async () => {
      const onKnown = await app.inject({ method: 'QUERY' as 'GET', url: known });
      assert.equal(onKnown.statusCode, 405, onKnown.body);
      assert.equal(onKnown.headers.allow, allow);
      const onUnknown = await app.inject({ method: 'QUERY' as 'GET', url: unknown });
      assert.equal(onUnknown.statusCode, 404, onUnknown.body);
      assert.equal(onUnknown.json().errors[0].type, 'ROUTE_NOT_FOUND');
    });

    it('lets HEAD through wherever GET is', async () => {
      const response = await app.inject({ method: 'HEAD', url: '/healthz' });
      assert.equal(response.statusCode, 200);
      const refused = await app.inject({ method: 'POST', url: '/healthz', payload: {} });
      assert.equal(refused.statusCode, 405);
      assert.equal(refused.headers.allow, 'GET, HEAD');
    });
  });
}

describe('client-api: 405 inside the base path, in the negotiated media type', () => {
  let app: App;
  let close: () => Promise<void>;
  before(async () => {
    ({ app, close } = await createTestApp('client-api'));
  });
  after(() => close());

  it('writes the 405 as XML for Accept: application/xml, with Allow and Vary', async () => {
    const response = await app.inject({
      method: 'PATCH',
      url: `${BASE}/accounts/4242/devices`,
      headers: { accept: 'application/xml' },
    });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'DELETE, GET, HEAD');
    assert.match(String(response.headers['content-type']), /^application\/xml/);
    assert.equal(response.headers.vary, 'Accept');
    assert.match(response.body, /<code>METHOD_NOT_ALLOWED<\/code>/);
    assert.match(response.body, /<type>METHOD_NOT_ALLOWED<\/type>/);
  });

  it('keeps the 404 of an unknown path in the negotiated type', async () => {
    const response = await app.inject({
      method: 'QUERY' as 'GET',
      url: `${BASE}/nowhere`,
      headers: { accept: 'application/xml' },
    });
    assert.equal(response.statusCode, 404);
    assert.match(response.body, /<type>ROUTE_NOT_FOUND<\/type>/);
  });

  it('answers a path parameter route the same for every value of the parameter', async () => {
    const response = await app.inject({ method: 'PUT', url: `${BASE}/accounts/other-account/devices` });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'DELETE, GET, HEAD');
  });
});
