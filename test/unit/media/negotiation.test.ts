import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeJson } from '../../../src/client-api/media/json-codec.ts';
import { negotiate, requestMediaType } from '../../../src/client-api/media/negotiation.ts';
import { ProblemError } from '../../../src/core/errors.ts';
import { jsonValue, viaJson } from './arbitraries.ts';

describe('Accept negotiation', () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['application/xml', 'application/xml'],
    ['application/xml;charset=utf-8', 'application/xml'],
    ['APPLICATION/BSON', 'application/bson'],
    ['application/ubjson, application/json', 'application/ubjson'],
    ['application/json;q=0.5, application/xml', 'application/xml'],
    ['text/html, */*;q=0.1', 'application/json'],
    ['text/html, application/*;q=0.2, application/bson;q=0.3', 'application/bson'],
    ['application/*, application/json;q=0', 'application/bson'],
    ['*/*;q=0.1, application/xml;q=0.05', 'application/json'],
    ['text/html', undefined],
    ['application/json;q=0', undefined],
    ['image/png, text/*', undefined],
    ['application/xml;q=abc', undefined],
  ];
  for (const [accept, expected] of cases) {
    it(`${accept ?? '(absent)'} → ${expected ?? '406'}`, () => {
      assert.equal(negotiate(accept), expected);
      assert.equal(negotiate(accept), expected, 'the cached answer is the same');
    });
  }

  it('reads the bare type of a Content-Type', () => {
    assert.equal(requestMediaType('Application/XML; charset=utf-8'), 'application/xml');
    assert.equal(requestMediaType(undefined), '');
  });
});

describe('JSON body decoding', () => {
  const refusal = (type: string) => (error: unknown) =>
    error instanceof ProblemError && error.status === 400 && error.type === type;

  it('round-trips every JSON value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        assert.deepStrictEqual(decodeJson(JSON.stringify(value), 64), viaJson(value));
      }),
    );
  });

  it('refuses malformed text, prototype keys and nesting beyond the limit', () => {
    assert.throws(() => decodeJson('{"a":', 32), refusal('MALFORMED_BODY'));
    assert.throws(() => decodeJson('{"__proto__":{"x":1}}', 32), refusal('MALFORMED_BODY'));
    assert.throws(() => decodeJson(`${'['.repeat(33)}${']'.repeat(33)}`, 32), refusal('BODY_TOO_DEEP'));
    assert.throws(
      () => decodeJson(`${'['.repeat(40_000)}${']'.repeat(40_000)}`, 32),
      refusal('BODY_TOO_DEEP'),
    );
    assert.deepStrictEqual(
      decodeJson(`${'['.repeat(32)}${']'.repeat(32)}`, 32),
      JSON.parse(`${'['.repeat(32)}${']'.repeat(32)}`),
    );
    assert.equal(decodeJson('  ', 32), undefined);
  });
});
