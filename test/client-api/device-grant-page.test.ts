import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type AccountsFixture, accountsFixture, BASE, PASSWORD } from './accounts-fixtures.ts';
import { askCodes, oauthError, PUBLIC_URL, poll, postForm } from './device-grant-fixture.ts';

/** The hidden ticket the confirmation step carries. */
const ticketOf = (page: LightMyRequestResponse) => /name="ticket" value="([^"]+)"/.exec(page.body)?.[1] ?? '';

describe('TV sign-in verification page (client-api, at the verification_uri)', () => {
  let f: AccountsFixture;
  before(async () => {
    f = await accountsFixture({ CLIENT_API_PUBLIC_URL: PUBLIC_URL });
    for (const account of ['page-1', 'page-2', 'page-3']) await f.account(account);
  });
  after(() => f.close());

  const signInStep = (form: Record<string, string>, from = '10.3.0.1') =>
    postForm(f.app, '/device', form, { from });

  describe('happy', () => {
    it('serves a self-contained form with the code filled in, in English or Spanish', async () => {
      const codes = await askCodes(f.app, 'page-tv');
      const page = await f.app.inject({ method: 'GET', url: `${BASE}/device?user_code=${codes.user_code}` });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/);
      assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
      assert.match(page.body, /<html lang="en">/);
      assert.match(page.body, new RegExp(`value="${codes.user_code}"`));
      assert.match(page.body, /name="viewport" content="width=device-width/);
      // No external resource: nothing is loaded from anywhere (no src, no stylesheet link, no script).
      assert.doesNotMatch(page.body, /<script|<link|src=|url\(/);
      const spanish = await f.app.inject({
        method: 'GET',
        url: `${BASE}/device`,
        headers: { 'accept-language': 'es-ES,es;q=0.9,en;q=0.5' },
      });
      assert.match(spanish.body, /<html lang="es">/);
      assert.match(spanish.body, /Código de la tele/);
      const chosen = await f.app.inject({
        method: 'GET',
        url: `${BASE}/device?lang=en`,
        headers: { 'accept-language': 'es' },
      });
      assert.match(chosen.body, /Code on the TV/);
    });

    it('signs in, names the device and the account, and signs the TV in on approval', async () => {
      const codes = await askCodes(f.app, 'page-tv-1', { deviceName: 'Salón "grande"' });
      const confirm = await signInStep({
        user_code: codes.user_code.toLowerCase(),
        username: 'page-1@example.test',
        password: PASSWORD,
        lang: 'es',
      });
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /¿Iniciar sesión en esta tele\?/);
      assert.match(confirm.body, /<p class="untrusted"><bdi>Salón grande<\/bdi><\/p>/);
      assert.match(confirm.body, /smarttv/);
      assert.match(confirm.body, /page-1/);
      assert.match(confirm.body, new RegExp(codes.user_code));
      // Not decided yet.
      assert.equal(oauthError(await poll(f.app, codes.device_code)).error, 'authorization_pending');
      const done = await postForm(f.app, '/device/decision', {
        ticket: ticketOf(confirm),
        decision: 'approve',
        lang: 'es',
      });
      assert.equal(done.statusCode, 200);
      assert.match(done.body, /Tu tele ha iniciado sesión/);
      // The TV waits its interval, as it must, then gets tokens of the account.
      await new Promise((resolve) => setTimeout(resolve, 5_100));
      const tokens = await poll(f.app, codes.device_code);
      assert.equal(tokens.statusCode, 200, tokens.body);
      const list = await f.call('GET', '/accounts/page-1/devices', { token: tokens.json().access_token });
      assert.equal(list.statusCode, 200);
      // The same ticket cannot decide twice.
      const twice = await postForm(f.app, '/device/decision', {
        ticket: ticketOf(confirm),
        decision: 'deny',
      });
      assert.equal(twice.statusCode, 409);
    });

    it('refusing on the page is access_denied to the TV', async () => {
      const codes = await askCodes(f.app, 'page-tv-2');
      const confirm = await signInStep({
        user_code: codes.user_code,
        username: 'page-2@example.test',
        password: PASSWORD,
      });
      const done = await postForm(f.app, '/device/decision', { ticket: ticketOf(confirm), decision: 'deny' });
      assert.equal(done.statusCode, 200);
      assert.match(done.body, /Sign-in refused/);
      assert.equal(oauthError(await poll(f.app, codes.device_code)).error, 'access_denied');
    });
  });

  describe('errors', () => {
    it('a wrong password says nothing about the code; a wrong code after a right password says the code is wrong', async () => {
      const codes = await askCodes(f.app, 'page-tv-3', { deviceName: 'Secret name' });
      const wrong = await signInStep({
        user_code: codes.user_code,
        username: 'page-3@example.test',
        password: 'nope',
      });
      assert.equal(wrong.statusCode, 401);
      assert.match(wrong.body, /The e-mail or password is wrong/);
      assert.doesNotMatch(wrong.body, /Secret name|smarttv/);
      const unknown = await signInStep({
        user_code: 'BBBB-BBBB',
        username: 'page-3@example.test',
        password: 'nope',
      });
      assert.equal(unknown.body.replace(/BBBB-BBBB/g, codes.user_code), wrong.body);
      const badCode = await signInStep({
        user_code: 'BBBB-BBBB',
        username: 'page-3@example.test',
        password: PASSWORD,
      });
      assert.equal(badCode.statusCode, 404);
      assert.match(badCode.body, /That code is not valid or has expired/);
      const forged = await postForm(f.app, '/device/decision', { ticket: 'abc.def', decision: 'approve' });
      assert.equal(forged.statusCode, 400);
      assert.match(forged.body, /Start over/);
    });
  });

  describe('security', () => {
    it("uses the sign-in's throttle: after 5 wrong passwords even the right one is 429", async () => {
      const codes = await askCodes(f.app, 'page-tv-4');
      for (let attempt = 0; attempt < 5; attempt++) {
        const wrong = await signInStep(
          { user_code: codes.user_code, username: 'page-3@example.test', password: 'wrong' },
          `10.4.0.${attempt}`,
        );
        assert.equal(wrong.statusCode, 401);
      }
      const right = await signInStep(
        { user_code: codes.user_code, username: 'page-3@example.test', password: PASSWORD },
        '10.4.1.1',
      );
      assert.equal(right.statusCode, 429);
      assert.ok(Number(right.headers['retry-after']) >= 1);
      assert.match(right.body, /Too many attempts/);
    });
  });
});
