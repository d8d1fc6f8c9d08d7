import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bearer } from '../../src/client-api/auth/tokens.ts';

/** What the Authorization grammar accepts, as one expression: the reference for the fast path. */
const reference = (header: string) => /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];

describe('bearer(): the token of an Authorization header', () => {
  it('takes the common form and the forms the grammar allows', () => {
    assert.equal(bearer('Bearer abc.def.ghi'), 'abc.def.ghi');
    assert.equal(bearer('bearer abc'), 'abc');
    assert.equal(bearer('BEARER  abc'), 'abc');
    assert.equal(bearer('Bearer\tabc'), 'abc');
    assert.equal(bearer('Bearer abc  '), 'abc');
  });

  it('refuses anything else', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Bearer a b',
      'Basic abc',
      'Bearerabc',
      ' Bearer abc',
    ])
      assert.equal(bearer(header), undefined, JSON.stringify(header));
  });

  it('answers exactly what the full expression answers, for any header', () => {
    const whitespace = fc.constantFrom(' ', '\t', '  ', '\u00a0', '\n');
    const header = fc.oneof(
      fc.string(),
      fc
        .tuple(fc.constantFrom('Bearer', 'bearer', 'Basic'), whitespace, fc.string(), fc.option(whitespace))
        .map(([scheme, space, token, trailing]) => `${scheme}${space}${token}${trailing ?? ''}`),
    );
    fc.assert(
      fc.property(header, (value) => {
        assert.equal(bearer(value), reference(value));
      }),
      { numRuns: 2000 },
    );
  });
});
