import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Builder, parseStringPromise } from 'xml2js';
import type { JsonSchema } from '../../../src/client-api/media/schema.ts';
import { decodeXml } from '../../../src/client-api/media/xml-decode.ts';
import { encodeXml } from '../../../src/client-api/media/xml-encode.ts';
import { decodeName, encodeName } from '../../../src/client-api/media/xml-names.ts';
import { ProblemError } from '../../../src/core/errors.ts';
import { DEVICE_FIELDS, MAX_DEPTH, noRefs } from '../../helpers/body-fuzz/codecs.ts';
import { typedValue } from './arbitraries.ts';

const read = (text: string, schema?: JsonSchema) => decodeXml(text, schema, noRefs, MAX_DEPTH);

function refusal(type: string) {
  return (error: unknown) => error instanceof ProblemError && error.status === 400 && error.type === type;
}

const Device: JsonSchema = {
  type: 'object',
  xml: { name: 'DeviceBase' },
  properties: {
    ...DEVICE_FIELDS,
    codes: { type: 'array', items: { type: 'integer', xml: { name: 'code' } } },
  },
  required: ['name', 'enabled', 'serial', 'tags', 'codes'],
};
const DeviceList: JsonSchema = {
  type: 'array',
  items: Device,
  xml: { name: 'ArrayOfDeviceBase', wrapped: true },
};

describe('XML codec', () => {
  it('round-trips every value through its schema (names, lists, nulls, scalars typed back)', () => {
    fc.assert(
      fc.property(typedValue, ({ schema, value }) => {
        const xml = encodeXml(schema, value, noRefs);
        assert.deepStrictEqual(read(xml, schema), value, xml);
      }),
      { numRuns: 400 },
    );
  });

  it('writes documents an independent parser (xml2js) reads as the expected tree', async () => {
    const devices = [
      {
        name: 'TV <1> & "x"',
        enabled: true,
        serial: 9007199254740991,
        weight: 1.5,
        tags: ['a', 'b'],
        codes: [1, 2],
      },
      { name: '', enabled: false, serial: 1, tags: [], codes: [] },
    ];
    const xml = encodeXml(DeviceList, devices, noRefs);
    assert.ok(xml.startsWith('<?xml version="1.0" encoding="utf-8"?><ArrayOfDeviceBase><DeviceBase>'));
    const tree = await parseStringPromise(xml, { explicitArray: false });
    const [first, second] = tree.ArrayOfDeviceBase.DeviceBase;
    assert.deepStrictEqual(first, {
      name: 'TV <1> & "x"',
      enabled: 'true',
      serial: '9007199254740991',
      weight: '1.5',
      tags: { tags: ['a', 'b'] },
      code: ['1', '2'],
    });
    assert.deepStrictEqual(second, { name: '', enabled: 'false', serial: '1', tags: '' });
  });

  it('names scalars and unnamed types the .NET way', async () => {
    assert.equal(
      encodeXml({ type: 'string' }, 'a&b', noRefs),
      '<?xml version="1.0" encoding="utf-8"?><string>a&amp;b</string>',
    );
    assert.match(
      encodeXml({ type: 'array', items: { type: 'string' } }, ['x'], noRefs),
      /<ArrayOfstring><string>x<\/string><\/ArrayOfstring>$/,
    );
    assert.match(
      encodeXml({ type: 'object', additionalProperties: true }, { ok: true }, noRefs),
      /<Object><ok>true<\/ok><\/Object>$/,
    );
    assert.match(encodeXml({ type: 'integer', format: 'int64' }, 5, noRefs), /<long>5<\/long>$/);
    assert.equal(encodeXml({ type: 'string' }, undefined, noRefs), '');
    const nil = await parseStringPromise(encodeXml(Device, { name: null }, noRefs));
    assert.equal(nil.DeviceBase.name[0].$['xsi:nil'], 'true');
  });

  it('escapes any key into an XML name and back (XmlConvert.EncodeName style)', () => {
    for (const key of ['a b', '1st', 'x:y', '_x0041_', '', 'ñandú', '😀', 'a_x', 'xml']) {
      assert.equal(decodeName(encodeName(key)), key, key);
      assert.match(encodeName(key), /^[A-Za-z_\u00C0-\uFFFD][-.\w\u00B7\u00C0-\uFFFD]*$/u);
    }
    assert.equal(encodeName('a b'), 'a_x0020_b');
  });

  it('escapes the space characters XML allows in names but parsers split at, and a literal `_x_`', () => {
    // Found by the round-trip property: U+1680 and U+2003 are in XML 1.0's name ranges.
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        'a\u1680': { type: 'integer' },
        '\u2003b': { type: 'boolean' },
        _x_: { type: 'string' },
        '': { type: 'string' },
      },
    };
    const value = { 'a\u1680': 1, '\u2003b': true, _x_: 'literal', '': 'empty' };
    const xml = encodeXml(schema, value, noRefs);
    assert.ok(!/\s/u.test(xml.replace(/^<\?xml[^>]*\?>/, '')), xml);
    assert.deepStrictEqual(read(xml, schema), value);
    assert.equal(encodeName('_x_'), '_x005F_x_');
  });

  it('reads what an independent writer (xml2js Builder) produces, typing scalars through the schema', () => {
    const xml = new Builder({ rootName: 'DeviceBase' }).buildObject({
      name: 'Kitchen & co',
      enabled: 'true',
      serial: '9007199254740991',
      weight: '2.5',
      tags: { tags: ['x', 'y'] },
      code: ['7', '8'],
    });
    assert.deepStrictEqual(read(xml, Device), {
      name: 'Kitchen & co',
      enabled: true,
      serial: 9007199254740991,
      weight: 2.5,
      tags: ['x', 'y'],
      codes: [7, 8],
    });
  });

  it('keeps text it cannot type for validation to refuse, and types 1/0 booleans', () => {
    const value = read('<D><name>n</name><enabled>1</enabled><serial>twelve</serial><tags/></D>', Device);
    assert.deepStrictEqual(value, { name: 'n', enabled: true, serial: 'twelve', tags: [], codes: [] });
  });

  it('resolves only the predefined entities and character references, and CDATA literally', () => {
    assert.equal(
      read('<string>&lt;&amp;&gt;&quot;&apos;&#65;&#x42;</string>', { type: 'string' }),
      '<&>"\'AB',
    );
    assert.equal(read('<string><![CDATA[a &amp; <b>]]></string>', { type: 'string' }), 'a &amp; <b>');
    assert.equal(
      read('\uFEFF<?xml version="1.0"?><!-- hi --><string> spaced </string>', { type: 'string' }),
      ' spaced ',
    );
    assert.throws(() => read('<string>&nbsp;</string>', { type: 'string' }), refusal('MALFORMED_BODY'));
    assert.throws(() => read('<string>&#0;</string>', { type: 'string' }), refusal('MALFORMED_BODY'));
  });

  it('refuses DTDs, entity declarations and external references with 400 XML_DTD_FORBIDDEN', () => {
    const attacks = [
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><string>&lol2;</string>',
      '<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><string>&xxe;</string>',
      '<!DOCTYPE string SYSTEM "http://example.com/evil.dtd"><string>x</string>',
      '<!doctype string><string>x</string>',
    ];
    for (const xml of attacks)
      assert.throws(() => read(xml, { type: 'string' }), refusal('XML_DTD_FORBIDDEN'), xml);
  });

  it('refuses malformed documents with 400 MALFORMED_BODY', () => {
    const cases = [
      '<a><b>x</c></a>',
      '<a>',
      'plain text',
      '<a></a><b></b>',
      '<a>x &amp y</a>',
      '<a attr="1></a>',
      '<!-- open',
    ];
    for (const xml of cases)
      assert.throws(() => read(xml, { type: 'object' }), refusal('MALFORMED_BODY'), xml);
    assert.equal(read('   ', { type: 'object' }), undefined);
  });

  it('refuses an integer beyond 2^53-1 rather than rounding it', () => {
    assert.throws(
      () => read('<long>9007199254740993</long>', { type: 'integer' }),
      refusal('INTEGER_OUT_OF_RANGE'),
    );
  });

  it('refuses nesting beyond the limit with 400 BODY_TOO_DEEP, before parsing', () => {
    const nest = (levels: number) => `${'<a>'.repeat(levels)}x${'</a>'.repeat(levels)}`;
    assert.ok(read(nest(MAX_DEPTH + 1)));
    assert.throws(() => read(nest(MAX_DEPTH + 2)), refusal('BODY_TOO_DEEP'));
    assert.throws(() => read(nest(50_000)), refusal('BODY_TOO_DEEP'));
  });
});
