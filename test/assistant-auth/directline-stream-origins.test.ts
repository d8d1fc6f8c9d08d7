import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStreamOrigins } from '../../src/assistant-auth/directline/stream-origins.ts';
import { loadConfig } from '../../src/core/config.ts';

describe('embedded Direct Line channel: the origins that may open a stream', () => {
  describe('errors', () => {
    it('are configured as origins, comma-separated, or `*`; anything else stops the start', () => {
      const allowed = (value: string) =>
        loadConfig({ DIRECTLINE_ALLOWED_ORIGINS: value }).DIRECTLINE_ALLOWED_ORIGINS;
      assert.equal(
        allowed('https://a.example,http://b.example:8080'),
        'https://a.example,http://b.example:8080',
      );
      assert.equal(allowed('https://a.example, https://b.example'), 'https://a.example, https://b.example');
      assert.equal(allowed('*'), '*');
      assert.equal(loadConfig({}).DIRECTLINE_ALLOWED_ORIGINS, '');
      for (const bad of ['a.example', 'https://a.example/', 'https://a.example,*', 'ftp://a']) {
        assert.throws(() => allowed(bad), /DIRECTLINE_ALLOWED_ORIGINS/, bad);
      }
    });
  });

  describe('security', () => {
    it('are the listed ones as browsers send them, and the service’s own, read per call', () => {
      let address = 'http://127.0.0.1:0';
      const origins = createStreamOrigins('https://Shop.Example:443, http://localhost:3000', () => address);
      assert.equal(origins.allows('https://shop.example'), true, 'scheme and host case, default port');
      assert.equal(origins.allows('http://localhost:3000'), true);
      assert.equal(origins.allows('http://localhost:3001'), false);
      assert.equal(origins.allows('http://127.0.0.1:8081'), false);
      address = 'https://assistant.example/base/';
      assert.equal(origins.allows('https://assistant.example'), true, 'the address once known, without path');
      assert.equal(origins.allows('null'), false);
      assert.equal(origins.allows('not a url'), false);
      assert.equal(origins.allows('chrome-extension://abc'), false);
      assert.equal(origins.allows(undefined), true, 'a client that sends no Origin is not a page');
    });

    it('are every origin with `*`, and only the service’s own with an empty list', () => {
      assert.equal(createStreamOrigins('*', () => 'http://127.0.0.1:1').allows('https://any.example'), true);
      const none = createStreamOrigins('', () => 'http://127.0.0.1:1');
      assert.equal(none.allows('https://any.example'), false);
      assert.equal(none.allows('http://127.0.0.1:1'), true);
    });
  });
});
