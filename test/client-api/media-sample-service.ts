import Type, { type Static } from 'typebox';
import { Int64Id } from '../../src/client-api/common-schemas.ts';
import { deviceErrors } from '../../src/client-api/devices/errors.ts';
import { mediaBodyErrors } from '../../src/client-api/media/errors.ts';
import { mediaTypes } from '../../src/client-api/media/plugin.ts';
import { defineErrors, httpErrors } from '../../src/core/errors.ts';
import { withErrors } from '../../src/core/http/route-errors.ts';
import { type App, type ServiceDefinition, typed } from '../../src/core/http/service-app.ts';

/**
 * A test-only client-api with sample routes of every shape the real client API routes have (object, list,
 * string, 204, generic object, thrown errors, bodies), registered the way service.ts registers the
 * plugin: in the `/api/v1` scope, before the routes.
 */

export const DeviceBase = Type.Object(
  {
    mediaPlayerId: Type.String(),
    name: Type.String(),
    deviceClass: Type.String(),
    enabled: Type.Boolean(),
    registeredAt: Type.String({ format: 'date-time' }),
    lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    playing: Type.Boolean(),
    serial: Int64Id,
    tags: Type.Array(Type.String(), { xml: { wrapped: true } }),
  },
  { xml: { name: 'DeviceBase' } },
);

export const DeviceList = Type.Array(DeviceBase, { xml: { name: 'ArrayOfDeviceBase', wrapped: true } });

export const DeviceInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    enabled: Type.Boolean(),
    serial: Int64Id,
    weight: Type.Optional(Type.Number()),
    tags: Type.Array(Type.String(), { xml: { wrapped: true } }),
  },
  { xml: { name: 'DeviceInput' }, additionalProperties: false },
);

/** The real devices' 404, and a sample-only 409 that always carries Retry-After. */
const sampleErrors = {
  DEVICE_NOT_FOUND: deviceErrors.DEVICE_NOT_FOUND,
  ...defineErrors('client-api/media-sample', {
    DEVICE_IN_COOLDOWN: [409, 'The device is in its cool-down.', ['retry-after']],
  }),
};

type DeviceRecord = Static<typeof DeviceBase> & { internalSecret: string };

export function sampleDevice(index: number): DeviceRecord {
  return {
    mediaPlayerId: `mp-${index}`,
    name: `Living room ${index} <TV> & "more"`,
    deviceClass: index % 2 === 0 ? 'android' : 'smarttv',
    enabled: index % 3 !== 0,
    // A Date, as a repository may hand one back: every serialiser must call its toJSON.
    registeredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)) as unknown as string,
    lastSeenAt: index % 4 === 0 ? null : new Date(Date.UTC(2026, 10, 1, 0, 0, index)).toISOString(),
    playing: index % 5 === 0,
    serial: 9007199254740000 + index,
    tags: index % 2 === 0 ? ['a', 'b'] : [],
    internalSecret: 'never shown',
  };
}

async function sampleRoutes(app: App, options: { bodyLimit: number; maxDepth: number }): Promise<void> {
  await app.register(mediaTypes, options);
  app.get(
    '/devices',
    { schema: withErrors({ response: { 200: DeviceList } }, [httpErrors.VALIDATION_ERROR]) },
    async () => Array.from({ length: 20 }, (_, index) => sampleDevice(index)),
  );
  app.get(
    '/devices/:id',
    {
      schema: withErrors({ params: Type.Object({ id: Type.String() }), response: { 200: DeviceBase } }, [
        sampleErrors.DEVICE_NOT_FOUND,
      ]),
    },
    async (request) => {
      if (request.params.id === 'missing') throw sampleErrors.DEVICE_NOT_FOUND();
      return sampleDevice(Number(request.params.id));
    },
  );
  app.delete(
    '/devices/:id',
    {
      schema: withErrors({ params: Type.Object({ id: Type.String() }), response: { 204: Type.Null() } }, [
        sampleErrors.DEVICE_IN_COOLDOWN,
      ]),
    },
    async (request, reply) => {
      // The cool-down error carries Retry-After, as the real device cool-down does.
      if (request.params.id === 'cooling') {
        throw sampleErrors.DEVICE_IN_COOLDOWN(undefined, { headers: { 'retry-after': '120' } });
      }
      return reply.code(204).send(null);
    },
  );
  app.get('/userHash', { schema: { response: { 200: Type.String() } } }, async () => 'hash <&> "x"');
  app.get('/count', { schema: { response: { 200: Type.Integer() } } }, async () => 42);
  app.get(
    '/generic',
    { schema: { response: { 200: Type.Object({}, { additionalProperties: true }) } } },
    async () => ({
      ok: true,
      nested: { count: 3, list: [1, 2] },
    }),
  );
  // Not listed in the response map: still the Error body in every format.
  app.get('/boom', async () => {
    throw new Error('unexpected fault');
  });
  app.post(
    '/devices',
    {
      schema: withErrors({ body: DeviceInput, response: { 200: DeviceInput } }, mediaBodyErrors),
    },
    async (request) => request.body,
  );
  app.post(
    '/echo/list',
    {
      schema: {
        body: Type.Array(DeviceInput, { xml: { name: 'ArrayOfDeviceInput', wrapped: true } }),
        response: { 200: Type.Array(DeviceInput, { xml: { name: 'ArrayOfDeviceInput', wrapped: true } }) },
      },
    },
    async (request) => request.body,
  );
  app.post(
    '/echo/string',
    { schema: { body: Type.String({ maxLength: 100 }), response: { 200: Type.String() } } },
    async (request) => request.body,
  );
  app.post(
    '/echo/integer',
    {
      schema: {
        body: Type.Integer(),
        response: { 200: Type.Object({ value: Type.Integer() }, { xml: { name: 'Wrapped' } }) },
      },
    },
    async (request) => ({ value: request.body }),
  );
  app.post(
    '/echo/any',
    { schema: { body: Type.Unknown(), response: { 200: Type.Unknown() } } },
    async (request) => request.body ?? null,
  );
  // An operation with no body schema: whatever body arrives is ignored.
  app.put(
    '/ratings/:contentId',
    {
      schema: {
        params: Type.Object({ contentId: Int64Id }),
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async (request) => ({
      contentId: request.params.contentId,
      body: request.body === undefined ? 'none' : 'some',
    }),
  );
}

export function sampleService(options: { bodyLimit?: number; maxDepth?: number } = {}): ServiceDefinition {
  return {
    name: 'client-api',
    async plugin(instance, { core }) {
      await instance.register(
        (scope) =>
          sampleRoutes(typed(scope), {
            bodyLimit: options.bodyLimit ?? core.config.BODY_LIMIT,
            maxDepth: options.maxDepth ?? core.config.BODY_MAX_DEPTH,
          }),
        { prefix: '/api/v1' },
      );
    },
  };
}
