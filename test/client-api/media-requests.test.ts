import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Long, serialize } from 'bson';
import { suiteApp } from '../helpers/harness.ts';
import { errorOf, type FormatName, formatNames, readBody, writeBody } from './media-formats.ts';
import { sampleService } from './media-sample-service.ts';

const input = {
  name: 'Kitchen & <co>',
  enabled: true,
  serial: 9007199254740991,
  weight: 2.5,
  tags: ['x', 'y'],
};
/** The same input as an xml2js tree: scalars as text, the wrapped list as <tags><tags>…</tags></tags>. */
const inputXml = {
  name: 'Kitchen & <co>',
  enabled: 'true',
  serial: '9007199254740991',
  weight: '2.5',
  tags: { tags: ['x', 'y'] },
};

/** Bodies nested one level beyond the limit (32), written by each independent encoder. */
function tooDeep(type: FormatName): Buffer {
  let value: unknown = 'leaf';
  for (let level = 0; level < 33; level++) value = { a: value };
  if (type === 'application/xml') return writeBody(type, value, 'Deep');
  return writeBody(type, value);
}

const malformed: Record<FormatName, Buffer> = {
  'application/json': Buffer.from('{"name": "x",'),
  'application/bson': Buffer.from([0x10, 0, 0, 0, 0x02, 0x61, 0]),
  'application/ubjson': Buffer.from([0x7b, 0x69, 4, 0x6e, 0x61]),
  'application/xml': Buffer.from('<DeviceInput><name>x</DeviceInput>'),
};

/** An int64 one past 2^53 in each format, where each can carry it exactly. */
const beyond2p53: Record<FormatName, Buffer> = {
  'application/json': Buffer.from('{"name":"n","enabled":true,"serial":9007199254740993,"tags":[]}'),
  'application/bson': Buffer.from(
    serialize({ name: 'n', enabled: true, serial: Long.fromString('9007199254740993'), tags: [] }),
  ),
  'application/ubjson': (() => {
    const head = [0x7b, 0x69, 6, ...Buffer.from('serial'), 0x4c];
    const value = Buffer.alloc(8);
    value.writeBigInt64BE(9007199254740993n);
    return Buffer.from([...head, ...value, 0x7d]);
  })(),
  'application/xml': Buffer.from(
    '<DeviceInput><name>n</name><enabled>true</enabled><serial>9007199254740993</serial><tags/></DeviceInput>',
  ),
};

describe('media types: request bodies through HTTP', () => {
  const served = suiteApp(sampleService({ bodyLimit: 4096 }), []);

  const post = (url: string, type: string, payload: Buffer, accept = 'application/json') =>
    served.app.inject({ method: 'POST', url, headers: { 'content-type': type, accept }, payload });

  for (const type of formatNames) {
    describe(type, () => {
      it('reads a body written by an independent encoder into the same data', async () => {
        const body =
          type === 'application/xml' ? writeBody(type, inputXml, 'DeviceInput') : writeBody(type, input);
        const response = await post('/api/v1/devices', type, body);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepStrictEqual(response.json(), input);
      });

      it('answers in the negotiated type what it read in this type (same data back)', async () => {
        const body =
          type === 'application/xml' ? writeBody(type, inputXml, 'DeviceInput') : writeBody(type, input);
        const response = await post('/api/v1/devices', type, body, type);
        assert.equal(response.statusCode, 200);
        const answer = (await readBody(response)) as Record<string, unknown>;
        assert.deepStrictEqual(
          type === 'application/xml' ? answer.DeviceInput : answer,
          type === 'application/xml' ? inputXml : input,
        );
      });

      it('reads a list and a bare scalar', async () => {
        const list = type === 'application/xml' ? { DeviceInput: [inputXml, inputXml] } : [input, input];
        const listed = await post('/api/v1/echo/list', type, writeBody(type, list, 'ArrayOfDeviceInput'));
        assert.equal(listed.statusCode, 200, listed.body);
        assert.deepStrictEqual(listed.json(), [input, input]);
        const scalar = type === 'application/xml' ? Buffer.from('<int>12</int>') : writeBody(type, 12);
        const echoed = await post('/api/v1/echo/integer', type, scalar);
        assert.equal(echoed.statusCode, 200, echoed.body);
        assert.deepStrictEqual(echoed.json(), { value: 12 });
      });

      it('refuses a malformed body with 400 MALFORMED_BODY, in the negotiated type', async () => {
        const response = await post('/api/v1/devices', type, malformed[type], type);
        assert.equal(response.statusCode, 400);
        assert.deepStrictEqual(errorOf(type, await readBody(response)), {
          code: 'BAD_REQUEST',
          type: 'MALFORMED_BODY',
        });
      });

      it('refuses a body nested beyond 32 levels with 400 BODY_TOO_DEEP', async () => {
        const response = await post('/api/v1/echo/any', type, tooDeep(type));
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().errors[0].type, 'BODY_TOO_DEEP');
      });

      it('refuses a body over the limit with 413', async () => {
        const big =
          type === 'application/xml'
            ? writeBody(type, { name: 'x'.repeat(5000) }, 'DeviceInput')
            : writeBody(type, { name: 'x'.repeat(5000) });
        const response = await post('/api/v1/devices', type, big);
        assert.equal(response.statusCode, 413);
        assert.equal(response.json().errors[0].type, 'BODY_TOO_LARGE');
      });

      it('refuses an int64 beyond 2^53-1 with 400 rather than rounding it', async () => {
        const response = await post('/api/v1/devices', type, beyond2p53[type]);
        assert.equal(response.statusCode, 400, response.body);
        const expected = type === 'application/json' ? 'VALIDATION_ERROR' : 'INTEGER_OUT_OF_RANGE';
        assert.equal(response.json().errors[0].type, expected);
      });

      it('validates the decoded body against the schema (400 VALIDATION_ERROR per field)', async () => {
        const bad = { ...input, name: '' };
        const body =
          type === 'application/xml'
            ? writeBody(type, { ...inputXml, name: '', enabled: 'maybe' }, 'DeviceInput')
            : writeBody(type, bad);
        const response = await post('/api/v1/devices', type, body);
        assert.equal(response.statusCode, 400);
        const messages = response
          .json()
          .errors.map((error: { message: string }) => error.message)
          .join('; ');
        assert.match(messages, /body\/name/);
        if (type === 'application/xml') assert.match(messages, /body\/enabled/);
      });
    });
  }

  it('refuses XML with a DTD or entities with 400 XML_DTD_FORBIDDEN', async () => {
    const xxe =
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><DeviceInput><name>&x;</name></DeviceInput>';
    const response = await post('/api/v1/devices', 'application/xml', Buffer.from(xxe), 'application/xml');
    assert.equal(response.statusCode, 400);
    assert.deepStrictEqual(errorOf('application/xml', await readBody(response)), {
      code: 'BAD_REQUEST',
      type: 'XML_DTD_FORBIDDEN',
    });
  });

  it('matches the Content-Type by media type, whatever its case and parameters', async () => {
    for (const type of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/xml; charset=UTF-8',
    ]) {
      const body = type.toLowerCase().includes('xml')
        ? writeBody('application/xml', inputXml, 'DeviceInput')
        : writeBody('application/json', input);
      const response = await post('/api/v1/devices', type, body);
      assert.equal(response.statusCode, 200, type);
      assert.deepStrictEqual(response.json(), input);
    }
  });

  it('answers 415 for another Content-Type, or none, where a body is expected', async () => {
    const plain = await post('/api/v1/devices', 'text/plain', Buffer.from('hello'));
    assert.equal(plain.statusCode, 415);
    assert.equal(plain.json().errors[0].type, 'UNSUPPORTED_MEDIA_TYPE');
    const form = await post('/api/v1/devices', 'application/x-www-form-urlencoded', Buffer.from('a=1'));
    assert.equal(form.statusCode, 415);
    const none = await served.app.inject({
      method: 'POST',
      url: '/api/v1/devices',
      payload: Buffer.from('{}'),
    });
    assert.equal(none.statusCode, 415);
  });

  it('ignores a body sent to an operation that takes none, whatever its type', async () => {
    for (const [type, payload] of [
      ['text/plain', 'garbage'],
      ['application/json', '{not json'],
      ['application/xml', '<!DOCTYPE x><x/>'],
    ]) {
      const response = await served.app.inject({
        method: 'PUT',
        url: '/api/v1/ratings/7',
        headers: { 'content-type': type },
        payload,
      });
      assert.equal(response.statusCode, 200, type);
      assert.deepStrictEqual(response.json(), { contentId: 7, body: 'none' });
    }
  });

  it('refuses an int64 path parameter beyond 2^53-1 (Int64Id) instead of rounding it', async () => {
    const response = await served.app.inject({ method: 'PUT', url: '/api/v1/ratings/9007199254740993' });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().errors[0].type, 'VALIDATION_ERROR');
  });
});
