import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decrypt, deriveKey, encrypt, keyedHash, parseKey } from '../../src/core/secrets.ts';

describe('secrets', () => {
  const key = randomBytes(32);

  it('round-trips any text through AES-256-GCM', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ maxLength: 20 }), (text, aad) => {
        assert.equal(decrypt(key, encrypt(key, text, aad), aad).toString('utf8'), text);
      }),
    );
  });

  it('refuses a tampered, truncated or wrongly keyed value', () => {
    const sealed = encrypt(key, 'secret payload');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    const tampered = [parts[0], parts[1], body.toString('base64url'), parts[3]].join('.');
    assert.throws(() => decrypt(key, tampered));
    assert.throws(() => decrypt(key, sealed.slice(0, -4)));
    assert.throws(() => decrypt(randomBytes(32), sealed));
    assert.throws(() => decrypt(key, sealed, 'other context'));
    assert.throws(() => decrypt(key, 'not.sealed'));
  });

  it('derives distinct stable keys per purpose', () => {
    const master = randomBytes(32);
    assert.deepEqual(deriveKey(master, 'a'), deriveKey(master, 'a'));
    assert.notDeepEqual(deriveKey(master, 'a'), deriveKey(master, 'b'));
    assert.equal(deriveKey(master, 'a').length, 32);
  });

  it('hashes with a key', () => {
    assert.equal(keyedHash(key, '+34600000000'), keyedHash(key, '+34600000000'));
    assert.notEqual(keyedHash(key, '+34600000000'), keyedHash(randomBytes(32), '+34600000000'));
  });

  it('reads keys in hex and base64', () => {
    const raw = randomBytes(32);
    assert.deepEqual(parseKey(raw.toString('hex')), raw);
    assert.deepEqual(parseKey(raw.toString('base64')), raw);
    assert.throws(() => parseKey('abcd'));
  });
});
