import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsNul, NUL_MESSAGE, nulFailures } from '../../src/core/http/validation.ts';

describe('the rule on text: no U+0000 in any string of a request part', () => {
  it('finds NUL in strings, nested values and property names; not in bytes', () => {
    assert.equal(containsNul('a\u0000b'), true);
    assert.equal(containsNul({ a: [{ b: 'x\u0000' }] }), true);
    assert.equal(containsNul({ 'k\u0000': 1 }), true);
    assert.equal(containsNul({ a: ['x', 1, null, true], b: { c: 'y' } }), false);
    assert.equal(containsNul({ file: Buffer.from([0, 0, 0]) }), false);
    assert.equal(containsNul(undefined), false);
  });

  it('reads the router’s and the query parser’s records, which have no Object prototype', () => {
    const NullRecord = function NullRecord() {} as unknown as { new (): Record<string, unknown> };
    NullRecord.prototype = Object.create(null);
    const params = new NullRecord();
    params.accountNumber = 'a\u0000b';
    assert.equal(containsNul(params), true);
    assert.deepEqual(
      nulFailures(params).map((failure) => failure.instancePath),
      ['/accountNumber'],
    );
  });

  it('names each place with a JSON pointer, the first ten', () => {
    const failures = nulFailures({ 'a/b': ['ok', '\u0000'], 'c\u0000': 1, d: '\u0000' });
    assert.deepEqual(
      failures.map(({ instancePath, message }) => [instancePath, message]),
      [
        ['', 'must not have a property name with the character U+0000 (NUL)'],
        ['/d', NUL_MESSAGE],
        ['/a~1b/1', NUL_MESSAGE],
      ],
    );
    assert.equal(nulFailures(Array.from({ length: 50 }, () => '\u0000')).length, 10);
  });

  it('walks a body nested 200 000 deep without recursion, naming its first levels', () => {
    let deep: unknown = 'x\u0000';
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    assert.equal(containsNul(deep), true);
    const [failure] = nulFailures(deep);
    assert.equal(failure?.instancePath, `${'/0'.repeat(32)}/…`);
  });
});
