import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Type from 'typebox';
import { validationItems } from '../../src/core/http/error-handler.ts';
import { type App, type ServiceDefinition, typed } from '../../src/core/http/service-app.ts';
import { type FormatName, writeBody } from '../client-api/media-formats.ts';
import { sampleService } from '../client-api/media-sample-service.ts';
import { createTestApp, suiteApp } from '../helpers/harness.ts';

const BASE = '/api/v1';

/** The entries of a 400 VALIDATION_ERROR as `path message` strings. */
function entries(body: { errors: Array<{ type: string; message: string }> }): string[] {
  for (const item of body.errors) assert.equal(item.type, 'VALIDATION_ERROR');
  return body.errors.map((item) => item.message);
}

describe('strict bodies: agents', () => {
  let app: App;
  let close: () => Promise<void>;
  let headers: Record<string, string>;
  before(async () => {
    const test = await createTestApp('agents');
    ({ app, close } = test);
    headers = { 'x-api-key': (await test.core.apiKeys.create('runtime', 'strict-bodies')).key };
  });
  after(() => close());

  it('refuses numbers where the turn declares strings, one entry per field', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/agents/assistant/invoke',
      headers,
      payload: { input: 5, conversationId: 7 },
    });
    assert.equal(response.statusCode, 400, response.body);
    const messages = response.json().errors.map((item: { message: string }) => item.message);
    assert.equal(messages.length, 2, response.body);
    assert.ok(messages.some((message: string) => message.includes('input')));
    assert.ok(messages.some((message: string) => message.includes('conversationId')));
  });
});

describe('strict bodies: client-api', () => {
  let app: App;
  let close: () => Promise<void>;
  before(async () => {
    ({ app, close } = await createTestApp('client-api'));
  });
  after(() => close());

  it('refuses a number as the registration name, in JSON, BSON and UBJSON', async () => {
    for (const type of ['application/json', 'application/bson', 'application/ubjson'] as FormatName[]) {
      const response = await app.inject({
        method: 'POST',
        url: `${BASE}/smarttv/registration/request`,
        headers: { 'content-type': type },
        payload: writeBody(type, { email: 'a@b.example', name: 123 }),
      });
      assert.equal(response.statusCode, 400, `${type}: ${response.body}`);
      assert.deepEqual(entries(response.json()), ['body/name must be string'], type);
    }
  });

  it('refuses a number as username and a boolean as password before any credential check (400, not 401)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `${BASE}/auth/smarttv/users/authenticate`,
      payload: { username: 12345, password: true, deviceId: 'tv-strict' },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(entries(response.json()), [
      'body/username must be string',
      'body/password must be string',
    ]);
  });
});

describe('strict bodies: every media type of the client API', () => {
  const served = suiteApp(sampleService({ bodyLimit: 4096 }), []);

  const wrongTypes = { name: 5, enabled: 1, serial: '12', weight: '2.5', tags: ['x', 7] };
  for (const type of ['application/json', 'application/bson', 'application/ubjson'] as FormatName[]) {
    it(`${type}: lists each value of the wrong type once, converting none`, async () => {
      const response = await served.app.inject({
        method: 'POST',
        url: `${BASE}/devices`,
        headers: { 'content-type': type, accept: 'application/json' },
        payload: writeBody(type, wrongTypes),
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.deepEqual(entries(response.json()).sort(), [
        'body/enabled must be boolean',
        'body/name must be string',
        'body/serial must be integer',
        'body/tags/1 must be string',
        'body/weight must be number',
      ]);
    });
  }

  it('application/xml: leaf text is still read as the schema types it', async () => {
    const xml =
      '<DeviceInput><name>5</name><enabled>true</enabled><serial>12</serial><weight>2.5</weight><tags><tags>x</tags></tags></DeviceInput>';
    const response = await served.app.inject({
      method: 'POST',
      url: `${BASE}/devices`,
      headers: { 'content-type': 'application/xml', accept: 'application/json' },
      payload: xml,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepStrictEqual(response.json(), {
      name: '5',
      enabled: true,
      serial: 12,
      weight: 2.5,
      tags: ['x'],
    });
  });

  it('application/xml: text that is not of the declared type is still refused', async () => {
    const xml =
      '<DeviceInput><name>n</name><enabled>maybe</enabled><serial>12</serial><tags><tags>x</tags></tags></DeviceInput>';
    const response = await served.app.inject({
      method: 'POST',
      url: `${BASE}/devices`,
      headers: { 'content-type': 'application/xml', accept: 'application/json' },
      payload: xml,
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().code, 'BAD_REQUEST');
  });
});

describe('strict bodies: the shared plumbing', () => {
  const probe: ServiceDefinition = {
    name: 'agents',
    async plugin(instance) {
      typed(instance).post(
        '/probe/:count',
        {
          schema: {
            params: Type.Object({ count: Type.Integer() }),
            querystring: Type.Object({ flag: Type.Optional(Type.Boolean()) }),
            body: Type.Object({
              label: Type.Union([Type.String({ maxLength: 3 }), Type.Null()]),
              size: Type.Integer({ minimum: 0 }),
            }),
          },
        },
        async (request) => ({ count: request.params.count, flag: request.query.flag, body: request.body }),
      );
    },
  };
  const served = suiteApp(probe, []);

  it('still converts path and query text to their declared types', async () => {
    const response = await served.app.inject({
      method: 'POST',
      url: '/probe/3?flag=true',
      payload: { label: 'abc', size: 1 },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { count: 3, flag: true, body: { label: 'abc', size: 1 } });
  });

  it('lists a field failing every branch of a union once, with the types it may have', async () => {
    const response = await served.app.inject({
      method: 'POST',
      url: '/probe/3',
      payload: { label: 5, size: '1' },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(entries(response.json()), [
      'body/label must be string or null',
      'body/size must be integer',
    ]);
  });

  it('keeps one message per field when a value fails several checks', () => {
    const items = validationItems('body', [
      { instancePath: '/label', keyword: 'maxLength', message: 'must NOT have more than 3 characters' },
      { instancePath: '/label', keyword: 'type', message: 'must be null', params: { type: 'null' } },
      { instancePath: '/label', keyword: 'anyOf', message: 'must match a schema in anyOf' },
      {
        instancePath: '',
        keyword: 'required',
        message: "must have required property 'size'",
        params: { missingProperty: 'size' },
      },
    ]);
    assert.deepEqual(
      items.map((item) => item.message),
      ['body/label must NOT have more than 3 characters', "body/size must have required property 'size'"],
    );
  });
});
