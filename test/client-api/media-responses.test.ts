import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suiteApp } from '../helpers/harness.ts';
import { errorOf, type FormatName, formatNames, readBody } from './media-formats.ts';
import { sampleDevice, sampleService } from './media-sample-service.ts';

/** What a device looks like once the response schema is applied (JSON's own view). */
function expectedDevice(index: number): Record<string, unknown> {
  const { internalSecret: _hidden, ...visible } = sampleDevice(index);
  return JSON.parse(JSON.stringify(visible));
}

/** xml2js hands back strings, a wrapped empty list as '', nil as an attribute object. */
function deviceFromXml(tree: Record<string, unknown>): Record<string, unknown> {
  const tags =
    tree.tags === '' ? [] : ([] as string[]).concat((tree.tags as { tags: string | string[] }).tags);
  const nil = typeof tree.lastSeenAt === 'object';
  return {
    ...tree,
    enabled: tree.enabled === 'true',
    playing: tree.playing === 'true',
    serial: Number(tree.serial),
    lastSeenAt: nil ? null : tree.lastSeenAt,
    tags,
  };
}

/** BSON arrays at the top level are documents keyed "0", "1", …; UBJSON and JSON are plain. */
function listOf(type: FormatName, body: unknown): unknown[] {
  if (type === 'application/xml') {
    const devices = (body as { ArrayOfDeviceBase: { DeviceBase: Record<string, unknown>[] } })
      .ArrayOfDeviceBase.DeviceBase;
    return devices.map(deviceFromXml);
  }
  if (type === 'application/bson') return Object.values(body as Record<string, unknown>);
  return body as unknown[];
}

describe('media types: responses through HTTP', () => {
  const served = suiteApp(sampleService(), []);

  for (const type of formatNames) {
    describe(type, () => {
      it('lists the same devices, with only the schema fields, Vary: Accept and its Content-Type', async () => {
        const response = await served.app.inject({ url: '/api/v1/devices', headers: { accept: type } });
        assert.equal(response.statusCode, 200);
        assert.ok(String(response.headers['content-type']).startsWith(type));
        assert.equal(response.headers.vary, 'Accept');
        const devices = listOf(type, await readBody(response));
        assert.equal(devices.length, 20);
        assert.deepStrictEqual(
          devices,
          Array.from({ length: 20 }, (_, index) => expectedDevice(index)),
        );
      });

      it('answers one device as the DeviceBase object', async () => {
        const response = await served.app.inject({ url: '/api/v1/devices/2', headers: { accept: type } });
        assert.equal(response.statusCode, 200);
        const body = (await readBody(response)) as Record<string, unknown>;
        const device =
          type === 'application/xml' ? deviceFromXml(body.DeviceBase as Record<string, unknown>) : body;
        assert.deepStrictEqual(device, expectedDevice(2));
      });

      it('answers a bare string as a string (JSON string, <string>, { Value }, S)', async () => {
        const response = await served.app.inject({ url: '/api/v1/userHash', headers: { accept: type } });
        assert.equal(response.statusCode, 200);
        const body = await readBody(response);
        const expected = 'hash <&> "x"';
        if (type === 'application/xml') assert.deepStrictEqual(body, { string: expected });
        else if (type === 'application/bson') assert.deepStrictEqual(body, { Value: expected });
        else assert.equal(body, expected);
      });

      it('answers 204 with no body and no Content-Type', async () => {
        const response = await served.app.inject({
          method: 'DELETE',
          url: '/api/v1/devices/3',
          headers: { accept: type },
        });
        assert.equal(response.statusCode, 204);
        assert.equal(response.rawPayload.length, 0);
        assert.equal(response.headers['content-type'], undefined);
        assert.equal(response.headers.vary, 'Accept');
      });

      const errorCases = [
        {
          name: 'a thrown ProblemError listed in the route',
          method: 'GET',
          url: '/api/v1/devices/missing',
          status: 404,
          code: 'NOT_FOUND',
          error: 'DEVICE_NOT_FOUND',
        },
        {
          name: 'an unexpected fault (500, not listed)',
          method: 'GET',
          url: '/api/v1/boom',
          status: 500,
          code: 'INTERNAL_ERROR',
          error: 'INTERNAL_ERROR',
        },
        {
          name: 'an unknown path under the base path',
          method: 'GET',
          url: '/api/v1/nowhere',
          status: 404,
          code: 'NOT_FOUND',
          error: 'ROUTE_NOT_FOUND',
        },
        {
          name: 'a validation failure',
          method: 'PUT',
          url: '/api/v1/ratings/x',
          status: 400,
          code: 'BAD_REQUEST',
          error: 'VALIDATION_ERROR',
        },
      ] as const;
      for (const error of errorCases) {
        it(`renders the error body of ${error.name} in ${type}`, async () => {
          const response = await served.app.inject({
            method: error.method,
            url: error.url,
            headers: { accept: type },
          });
          assert.equal(response.statusCode, error.status);
          assert.ok(String(response.headers['content-type']).startsWith(type));
          assert.deepStrictEqual(errorOf(type, await readBody(response)), {
            code: error.code,
            type: error.error,
          });
        });
      }

      it('keeps the headers a ProblemError carries (Retry-After of a 409)', async () => {
        const response = await served.app.inject({
          method: 'DELETE',
          url: '/api/v1/devices/cooling',
          headers: { accept: type },
        });
        assert.equal(response.statusCode, 409);
        assert.equal(response.headers['retry-after'], '120');
        assert.deepStrictEqual(errorOf(type, await readBody(response)), {
          code: 'CONFLICT',
          type: 'DEVICE_IN_COOLDOWN',
        });
      });
    });
  }

  it('answers 406 in JSON when nothing in Accept can be produced', async () => {
    for (const accept of ['text/html', 'application/json;q=0', 'image/*']) {
      const response = await served.app.inject({ url: '/api/v1/devices/1', headers: { accept } });
      assert.equal(response.statusCode, 406, accept);
      assert.ok(String(response.headers['content-type']).startsWith('application/json'));
      assert.equal(response.headers.vary, 'Accept');
      assert.equal(response.json().errors[0].type, 'NOT_ACCEPTABLE');
    }
  });

  it('honours q-values, wildcards and parameters in Accept', async () => {
    const cases: [string, string][] = [
      ['*/*', 'application/json'],
      ['application/*;q=0.1, application/xml;charset=utf-8', 'application/xml'],
      ['text/html, application/ubjson;q=0.9, */*;q=0.1', 'application/ubjson'],
      ['application/json;q=0.4, application/bson;q=0.8', 'application/bson'],
    ];
    for (const [accept, type] of cases) {
      const response = await served.app.inject({ url: '/api/v1/count', headers: { accept } });
      assert.equal(response.statusCode, 200);
      assert.ok(String(response.headers['content-type']).startsWith(type), `${accept} → ${type}`);
    }
    const xml = await served.app.inject({ url: '/api/v1/count', headers: { accept: 'application/xml' } });
    assert.deepStrictEqual(await readBody(xml), { int: '42' });
  });

  it('writes generic objects with their own keys in every format', async () => {
    const expected = { ok: true, nested: { count: 3, list: [1, 2] } };
    for (const type of formatNames) {
      const body = await readBody(
        await served.app.inject({ url: '/api/v1/generic', headers: { accept: type } }),
      );
      if (type === 'application/xml') {
        assert.deepStrictEqual(body, {
          Object: { ok: 'true', nested: { count: '3', list: { int: ['1', '2'] } } },
        });
      } else assert.deepStrictEqual(body, expected, type);
    }
  });

  it('leaves routes outside the scope alone (health stays JSON)', async () => {
    const response = await served.app.inject({ url: '/healthz', headers: { accept: 'application/xml' } });
    assert.equal(response.statusCode, 200);
    assert.ok(String(response.headers['content-type']).startsWith('application/json'));
  });
});
