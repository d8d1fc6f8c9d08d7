import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { channelSecret } from '../../src/assistant-auth/directline/credentials.ts';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type Env, type TestCore, testDatabase } from '../helpers/harness.ts';
import { type FakeDirectLine, startFakeDirectLine } from './helpers/fake-directline.ts';

/** The stock bundle as installed: what /chat must serve byte for byte. */
function installedBundle(): { bytes: Buffer; version: string } {
  const folder = join(dirname(createRequire(import.meta.url).resolve('botframework-webchat')), '..');
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  return { bytes: readFileSync(join(folder, 'dist', 'webchat.js')), version };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: unknown): Map<string, string[]> {
  assert.equal(typeof header, 'string', 'Content-Security-Policy header');
  return new Map(
    String(header)
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name = '', ...values]) => [name, values]),
  );
}

/** The script and style sheet URLs of the page, and whether any script is inline. */
function pageParts(html: string) {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(
    ([, attributes = '', body = '']) => ({
      src: /\bsrc="([^"]+)"/.exec(attributes)?.[1],
      nonce: /\bnonce="([^"]+)"/.exec(attributes)?.[1],
      body,
    }),
  );
  const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map(([, href = '']) => href);
  return { scripts, styles, inlineStyle: /<style\b|\sstyle="/.test(html) };
}

async function withApp(env: Env) {
  return createTestApp('assistant-auth', env);
}

describe('chat page (CHAT_PAGE=on): page, bundle and token endpoint', () => {
  let app: App;
  let core: TestCore;
  let close: () => Promise<void>;
  before(async () => {
    ({ app, core, close } = await withApp({ CHAT_PAGE: 'on', CHAT_TOKEN_LIMIT: '3' }));
  });
  after(async () => close());

  it('serves the page with a CSP that allows only its own scripts, nonce’d styles and its Direct Line origin', async () => {
    const response = await app.inject({ url: '/chat' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    const csp = directives(response.headers['content-security-policy']);
    assert.deepEqual(csp.get('default-src'), ["'none'"]);
    assert.deepEqual(csp.get('script-src'), ["'self'"], 'no inline or eval’d script');
    assert.deepEqual(csp.get('base-uri'), ["'none'"]);
    assert.deepEqual(csp.get('frame-ancestors'), ["'none'"]);
    const origin = core.serviceUrl('assistant-auth');
    assert.deepEqual(csp.get('connect-src'), ["'self'", 'blob:', origin, origin.replace(/^http/, 'ws')]);
    const styleSources = csp.get('style-src') ?? [];
    assert.ok(!styleSources.includes("'unsafe-inline'"), styleSources.join(' '));

    const { scripts, styles, inlineStyle } = pageParts(response.body);
    assert.equal(scripts.length, 2, 'the Web Chat bundle and the page script');
    for (const script of scripts) {
      assert.ok(script.src?.startsWith('/chat/assets/'), `script from the service: ${script.src}`);
      assert.equal(script.body.trim(), '', 'no inline script');
    }
    assert.ok(!inlineStyle, 'no inline style');
    assert.deepEqual(styles.length, 1);
    // The page script hands its nonce to Web Chat: it is the one the CSP names, new on every load.
    const nonce = scripts.find((script) => script.nonce)?.nonce;
    assert.ok(
      nonce && styleSources.includes(`'nonce-${nonce}'`),
      `nonce ${nonce} in ${styleSources.join(' ')}`,
    );
    const again = pageParts((await app.inject({ url: '/chat' })).body);
    assert.notEqual(again.scripts.find((script) => script.nonce)?.nonce, nonce);

    for (const url of [...scripts.map((script) => script.src ?? ''), ...styles]) {
      const asset = await app.inject({ url });
      assert.equal(asset.statusCode, 200, url);
      assert.match(
        String(asset.headers['content-type']),
        url.endsWith('.css') ? /^text\/css/ : /^text\/javascript/,
      );
    }
  });

  it('serves the installed stock bundle byte for byte, cacheable for a year, gzipped when asked, 304 when held', async () => {
    const { bytes, version } = installedBundle();
    const url = `/chat/assets/webchat-${version}.js`;
    assert.ok(
      pageParts((await app.inject({ url: '/chat' })).body).scripts.some((script) => script.src === url),
    );

    const plain = await app.inject({ url });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(plain.headers['x-content-type-options'], 'nosniff');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(sha256(plain.rawPayload), sha256(bytes));

    const gzipped = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(gzipped.statusCode, 200);
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.ok(
      gzipped.rawPayload.length < bytes.length / 2,
      `gzip ${gzipped.rawPayload.length} of ${bytes.length}`,
    );
    assert.equal(sha256(gunzipSync(gzipped.rawPayload)), sha256(bytes));

    const etag = String(plain.headers.etag);
    const held = await app.inject({ url, headers: { 'if-none-match': etag } });
    assert.equal(held.statusCode, 304);
    assert.equal(held.rawPayload.length, 0);

    const license = await app.inject({ url: '/chat/assets/webchat.js.LICENSE.txt' });
    assert.equal(license.statusCode, 200);
    assert.match(license.body, /MIT|license/i);

    const unknown = await app.inject({ url: '/chat/assets/webchat.js.map' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().errors[0].type, 'CHAT_ASSET_NOT_FOUND');
  });

  it('hands out a conversation token of the embedded channel that Direct Line accepts', async () => {
    const response = await app.inject({ method: 'POST', url: '/chat/token', remoteAddress: '198.51.100.1' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    const body = response.json() as {
      token: string;
      expires_in: number;
      conversationId: string;
      domain: string;
    };
    assert.deepEqual(Object.keys(body).sort(), ['conversationId', 'domain', 'expires_in', 'token']);
    assert.equal(body.domain, `${core.serviceUrl('assistant-auth')}/v3/directline`);
    assert.equal(body.expires_in, core.config.DIRECTLINE_TOKEN_TTL);
    // What Web Chat does with it first: start (resume) the token's conversation.
    const started = await app.inject({
      method: 'POST',
      url: '/v3/directline/conversations',
      headers: { authorization: `Bearer ${body.token}` },
      payload: {},
    });
    assert.ok([200, 201].includes(started.statusCode), started.body);
    assert.equal(started.json().conversationId, body.conversationId);
  });

  it('limits tokens per client address: 429 with Retry-After in the family body; other addresses unaffected', async () => {
    const ask = (address: string) =>
      app.inject({ method: 'POST', url: '/chat/token', remoteAddress: address });
    for (let i = 0; i < 3; i++) assert.equal((await ask('203.0.113.7')).statusCode, 200);
    const refused = await ask('203.0.113.7');
    assert.equal(refused.statusCode, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= core.config.REQUEST_LIMIT_WINDOW, `Retry-After ${retryAfter}`);
    const problem = refused.json();
    assert.equal(problem.code, 'TOO_MANY_REQUESTS');
    assert.equal(problem.errors[0].type, 'RATE_LIMITED');
    assert.equal(problem.token, undefined);
    assert.equal((await ask('203.0.113.8')).statusCode, 200);
  });

  it('shows no API key and no channel secret: not in the page, its script or a token answer', async () => {
    const keys = await Promise.all(
      (['runtime', 'gateway', 'client', 'backoffice'] as const).map(
        async (keyClass) => (await core.apiKeys.create(keyClass, `chat-page-${keyClass}`)).key,
      ),
    );
    const secrets = [...keys, channelSecret(core), core.config.SINTONIA_MASTER_KEY ?? ''].filter(Boolean);
    const page = (await app.inject({ url: '/chat' })).body;
    const script = pageParts(page).scripts.find((part) => part.nonce)?.src ?? '';
    const texts = [
      page,
      (await app.inject({ url: script })).body,
      (await app.inject({ method: 'POST', url: '/chat/token', remoteAddress: '192.0.2.44' })).body,
    ];
    for (const text of texts) {
      for (const secret of secrets) assert.ok(!text.includes(secret), 'a secret in what the page receives');
      assert.doesNotMatch(text, /x-api-key|snt_[a-z]+_/i);
    }
  });

  it('keeps the page and its token endpoint out of the API document', async () => {
    const document = (await app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    assert.deepEqual(
      Object.keys(document.paths).filter((path) => path.startsWith('/chat')),
      [],
    );
  });
});

describe('chat page switch (CHAT_PAGE)', () => {
  const status = async (env: Env) => {
    const { app, close } = await withApp(env);
    try {
      return [
        (await app.inject({ url: '/chat' })).statusCode,
        (await app.inject({ method: 'POST', url: '/chat/token' })).statusCode,
        (await app.inject({ url: '/chat/assets/webchat.js.LICENSE.txt' })).statusCode,
      ];
    } finally {
      await close();
    }
  };

  it('off: no page, no token endpoint, no bundle (404)', async () => {
    assert.deepEqual(await status({ CHAT_PAGE: 'off' }), [404, 404, 404]);
  });

  it('auto: served where the demo data is loaded (SINTONIA_DEMO=1 on the embedded store) and nowhere else', async () => {
    assert.deepEqual(await status({ CHAT_PAGE: 'auto', SINTONIA_DEMO: '0' }), [404, 404, 404]);
    const expected = testDatabase === 'sqlite' ? [200, 200, 200] : [404, 404, 404];
    assert.deepEqual(await status({ CHAT_PAGE: 'auto', SINTONIA_DEMO: '1' }), expected);
  });

  it('rejects any other value at start, naming the variable', async () => {
    await assert.rejects(withApp({ CHAT_PAGE: 'yes' }), /CHAT_PAGE/);
  });
});

describe('chat page with an external Direct Line service (DIRECTLINE_URL)', () => {
  let app: App;
  let close: () => Promise<void>;
  let directLine: FakeDirectLine;
  before(async () => {
    directLine = await startFakeDirectLine();
    ({ app, close } = await withApp({
      CHAT_PAGE: 'on',
      DIRECTLINE_URL: `${directLine.url}/`,
      DIRECTLINE_SECRET: directLine.secret,
    }));
  });
  after(async () => {
    await close();
    await directLine.close();
  });

  it('gets the token from that service with its secret and points Web Chat (and the CSP) at it', async () => {
    directLine.mode = 'ok';
    directLine.calls.length = 0;
    const response = await app.inject({ method: 'POST', url: '/chat/token' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.match(body.token, /^dltoken\./);
    assert.equal(body.domain, `${directLine.url}/v3/directline`);
    assert.deepEqual(
      directLine.calls.map((call) => [call.path, call.authorization]),
      [['/v3/directline/tokens/generate', `Bearer ${directLine.secret}`]],
    );
    assert.ok(!response.body.includes(directLine.secret));
    const page = await app.inject({ url: '/chat' });
    assert.ok(!page.body.includes(directLine.secret));
    const connect = directives(page.headers['content-security-policy']).get('connect-src') ?? [];
    assert.deepEqual(connect, ["'self'", 'blob:', directLine.url, directLine.url.replace(/^http/, 'ws')]);
  });

  it('answers 502 in the family body when that service fails', async () => {
    directLine.mode = 'error';
    const response = await app.inject({ method: 'POST', url: '/chat/token' });
    assert.equal(response.statusCode, 502);
    assert.equal(response.json().errors[0].type, 'SUBSYSTEM_ERROR');
  });
});

describe('chat page sign-in (POST /chat/sign-in): refusals', () => {
  it('refuses a malformed body with 400 per field, a wrong password with 401, and binding on an external service with 400', async () => {
    const { app, close } = await withApp({ CHAT_PAGE: 'on' });
    try {
      const malformed = await app.inject({ method: 'POST', url: '/chat/sign-in', payload: { username: '' } });
      assert.equal(malformed.statusCode, 400);
      assert.equal(malformed.json().code, 'BAD_REQUEST');
      // No client-api listens in this test: the credentials cannot be checked (502), never accepted.
      const unchecked = await app.inject({
        method: 'POST',
        url: '/chat/sign-in',
        payload: { username: 'ana@example.test', password: 'secret' },
      });
      assert.equal(unchecked.statusCode, 502);
      assert.equal(unchecked.json().errors[0].type, 'SUBSYSTEM_ERROR');
      assert.ok(!unchecked.body.includes('secret'));
    } finally {
      await close();
    }
    const directLine = await startFakeDirectLine();
    const external = await withApp({
      CHAT_PAGE: 'on',
      DIRECTLINE_URL: `${directLine.url}/`,
      DIRECTLINE_SECRET: directLine.secret,
    });
    try {
      const refused = await external.app.inject({
        method: 'POST',
        url: '/chat/sign-in',
        payload: { username: 'ana@example.test', password: 'secret' },
      });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().errors[0].type, 'CHANNEL_BINDING_UNSUPPORTED');
      assert.deepEqual(directLine.calls, [], 'nothing asked of the external service');
    } finally {
      await external.close();
      await directLine.close();
    }
  });
});
